import { memoryStorage } from '@plant-store/storage-memory';
import { describeStorageConformance } from './storage-conformance.js';

describeStorageConformance('memory', { create: async () => memoryStorage() });
