import { describe, expect, it } from 'vitest';
import { memoryStorage } from '@plant-store/storage-memory';
import { ConfigurationError } from '../errors.js';
import { storeSettings } from './store-settings.js';

describe('storeSettings', () => {
  it('gives a library store without webhook options the product defaults', () => {
    expect(storeSettings({ storage: memoryStorage() })).toEqual({
      subscriptions: [],
      maxEndpointsPerTenant: 50,
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

  it('refuses a destination kind no transport sends to, naming it', () => {
    const webhooks = { endpointDestinationKinds: ['http', 'kafka'] as never };
    expect(() => storeSettings({ storage: memoryStorage(), webhooks })).toThrow(ConfigurationError);
    expect(() => storeSettings({ storage: memoryStorage(), webhooks })).toThrow(/must list kinds among http, amqp, nats, redis, mqtt, got kafka/);
  });
});
