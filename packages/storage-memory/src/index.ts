// Public API of @plant-store/storage-memory.

export { memoryStorage, type MemoryStorageOptions } from './memory-storage.js';
