import { createPlantStore, type PlantStore } from '@plant-store/core';
import { webhookHttpTransport } from '@plant-store/http-node/webhook-transport';
import { testTokens } from '../support/test-tokens.js';
import { openStorage } from '../support/webhook-test-service.js';

/** A store on a fresh SQLite file that knows `TOKENS` and delivers webhooks to loopback receivers. */
export async function startFrameworkStore(): Promise<{ store: PlantStore; close(): Promise<void> }> {
  const store = createPlantStore({
    // Its folder goes with it when the store closes it.
    storage: await openStorage('sqlite'),
    authenticator: testTokens(),
    webhooks: {
      transport: webhookHttpTransport({ userAgent: 'plant-store-test' }),
      retrySchedule: [20, 40],
      timeoutMs: 2_000,
      jitter: 0,
      pollIntervalMs: 20,
      allowPrivateDestinations: true,
    },
  });
  return { store, close: () => store.close() };
}
