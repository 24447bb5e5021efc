import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPlantStore, type PlantStore, type PlantStoreWebhookOptions } from '@plant-store/core';
import type { Storage } from '@plant-store/core/adapter';
import { createPlantServer } from '@plant-store/http-node';
import { webhookHttpTransport } from '@plant-store/http-node/webhook-transport';
import { memoryStorage } from '@plant-store/storage-memory';
import { sqliteStorage } from '@plant-store/storage-sqlite';
import type { StorageKind } from './storage-kind.js';
import { TOKENS, testTokens } from './test-tokens.js';

/** The reference HTTP service in this process on 127.0.0.1:0, with the real webhook HTTP transport. */
export interface TestService {
  readonly store: PlantStore;
  readonly base: string;
  /** POSTs raw JSON text to /plants with `token` (tenant a's owner unless given); resolves with the status. */
  create(body: string, token?: string): Promise<number>;
  close(): Promise<void>;
}

/** Opens storage of the given kind; SQLite in a fresh temporary folder (or at `path`), removed on close. */
export async function openStorage(kind: StorageKind, path?: string): Promise<Storage> {
  if (kind === 'memory') return memoryStorage();
  const dir = path === undefined ? mkdtempSync(join(tmpdir(), 'plant-store-webhooks-')) : undefined;
  const storage = await sqliteStorage({ path: path ?? join(dir!, 'plant-store.db') });
  return {
    plants: storage.plants,
    outbox: storage.outbox,
    endpoints: storage.endpoints,
    portalLinks: storage.portalLinks,
    ping: () => storage.ping(),
    async close() {
      await storage.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Starts a store and its HTTP server. Webhook defaults for tests: retries
 * after 20, 40, 80 ms, 1 s timeout, no jitter; anything can be overridden.
 */
export async function startService(kind: StorageKind | Storage, webhooks: PlantStoreWebhookOptions): Promise<TestService> {
  const storage = typeof kind === 'string' ? await openStorage(kind) : kind;
  const store = createPlantStore({
    storage,
    authenticator: testTokens(),
    webhooks: { transport: webhookHttpTransport(), retrySchedule: [20, 40, 80], timeoutMs: 1_000, jitter: 0, ...webhooks },
  });
  const server: Server = createPlantServer(store);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let closing: Promise<void> | undefined;
  return {
    store,
    base,
    async create(body, token: string = TOKENS.owner) {
      const response = await fetch(`${base}/plants`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body,
      });
      await response.arrayBuffer();
      return response.status;
    },
    close() {
      closing ??= (async () => {
        const closed = new Promise((resolve) => server.close(resolve));
        server.closeAllConnections();
        await closed;
        await store.close();
      })();
      return closing;
    },
  };
}
