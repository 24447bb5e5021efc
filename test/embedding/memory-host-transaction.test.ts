import { describe, expect, it } from 'vitest';
import { ConfigurationError, createPlantStore } from '@plant-store/core';
import { memoryStorage } from '@plant-store/storage-memory';

describe('store.inTransaction on memory storage', () => {
  it('is refused with a ConfigurationError: there is no host transaction to join', async () => {
    const store = createPlantStore({ storage: memoryStorage() });
    expect(() => store.inTransaction({})).toThrow(ConfigurationError);
    expect(() => store.inTransaction({})).toThrow(/cannot join a host transaction/);
    await store.close();
  });
});
