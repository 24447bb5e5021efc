// Public API of @plant-store/storage-postgres.

export { postgresStorage, type PostgresStorageOptions } from './postgres-storage.js';
