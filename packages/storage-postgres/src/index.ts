// Public API of @plant-store/storage-postgres.

export { postgresStorage, type PostgresStorageOptions } from './postgres-storage.js';
export { postgresMigrations, type PostgresMigrationsOptions } from './migrations/migration-provider.js';
export { postgresMigrationsSql } from './migrations/migrations-sql.js';
