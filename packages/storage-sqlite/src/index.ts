// Public API of @plant-store/storage-sqlite.

export { sqliteStorage, type SqliteStorageOptions } from './sqlite-storage.js';
export { backupSqliteDatabase, type SqliteBackupOptions } from './sqlite-backup.js';
export { sqliteMigrations } from './migrations/migration-provider.js';
export { sqliteMigrationsSql } from './migrations/migrations-sql.js';
