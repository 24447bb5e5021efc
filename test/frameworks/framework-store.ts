import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPlantStore, type PlantStore } from '@plant-store/core';
import { webhookHttpTransport } from '@plant-store/http-node/webhook-transport';
import { sqliteStorage } from '@plant-store/storage-sqlite';
import { testTokens } from '../support/test-tokens.js';

/** A store on a fresh SQLite file that knows `TOKENS` and delivers webhooks to loopback receivers. */
export async function startFrameworkStore(): Promise<{ store: PlantStore; close(): Promise<void> }> {
  const folder = mkdtempSync(join(tmpdir(), 'plant-store-framework-'));
  const store = createPlantStore({
    storage: await sqliteStorage({ path: join(folder, 'plants.db') }),
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
  return {
    store,
    async close() {
      await store.close();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}
