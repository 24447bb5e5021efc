import { describe, expect, it } from 'vitest';
import { memoryStorage } from '@plant-store/storage-memory';
import { ConfigurationError } from '../errors.js';
import { storeSettings } from './store-settings.js';

describe('storeSettings', () => {
  it('gives a library store without webhook options the product defaults', () => {
    expect(storeSettings({ storage: memoryStorage() })).toEqual({
      subscriptions: [],
      maxEndpointsPerTenant: 50,
      endpointCacheMs: 5_000,
      retentionMs: 30 * 86_400_000,
      pruneIntervalMs: undefined,
      secretOverlapMs: 86_400_000,
      allowPrivateDestinations: false,
      endpointDestinationKinds: ['http'],
      dispatch: {},
      batchSize: undefined,
    });
  });

  it('keeps finished deliveries when retention is null', () => {
    expect(storeSettings({ storage: memoryStorage(), webhooks: { retentionMs: null } }).retentionMs).toBeNull();
  });

  it('refuses an endpoint cache time that is not a duration of 0 or more', () => {
    for (const endpointCacheMs of [-1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => storeSettings({ storage: memoryStorage(), webhooks: { endpointCacheMs } })).toThrow(
        /endpointCacheMs.*must be a duration in ms of 0 or more/,
      );
    }
    expect(storeSettings({ storage: memoryStorage(), webhooks: { endpointCacheMs: 0 } }).endpointCacheMs).toBe(0);
  });

  it('refuses a destination kind no transport sends to, naming it', () => {
    const webhooks = { endpointDestinationKinds: ['http', 'kafka'] as never };
    expect(() => storeSettings({ storage: memoryStorage(), webhooks })).toThrow(ConfigurationError);
    expect(() => storeSettings({ storage: memoryStorage(), webhooks })).toThrow(/must list kinds among http, amqp, nats, redis, mqtt, got kafka/);
  });
});
