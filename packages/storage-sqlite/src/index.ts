// Public API of @plant-store/storage-sqlite.

export { sqliteStorage, type SqliteStorageOptions } from './sqlite-storage.js';
