import { describeStorageConformance } from '@plant-store/core/testing';
import { memoryStorage } from '@plant-store/storage-memory';

describeStorageConformance('memory', {
  create: async () => memoryStorage(),
  capabilities: { parkedLimit: async (parkedLimit) => memoryStorage({ parkedLimit }) },
});
