import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPlantStore, type PlantStore, type PlantStoreWebhookOptions } from '@plant-store/core';
import type { Authenticator, Clock, LogFields, Logger, Storage } from '@plant-store/core/adapter';
import type { PlantServerOptions } from '@plant-store/http-node';
import { webhookHttpTransport } from '@plant-store/http-node/webhook-transport';
import { memoryStorage } from '@plant-store/storage-memory';
import { postgresStorage } from '@plant-store/storage-postgres';
import { sqliteStorage } from '@plant-store/storage-sqlite';
import { createFrontServer, type HttpFront } from './http-front.js';
import { TEST_DATABASE_URL, testSchemas } from './postgres-database.js';
import type { AnyStorageKind } from './storage-kind.js';
import { testTokens } from './test-tokens.js';

export interface LogEntry {
  readonly level: keyof Logger;
  readonly message: string;
  readonly fields: LogFields | undefined;
}

export interface TestServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  readonly store: PlantStore;
  readonly storage: Storage;
  /** Everything the server logged, in order. */
  readonly logs: LogEntry[];
  close(): Promise<void>;
}

export interface TestServerOptions extends PlantServerOptions {
  /** Plants per storage batch when streaming (small values make streaming observable with few plants). */
  readonly batchSize?: number;
  /** Lets a test put a spy or a fault in front of the storage. */
  readonly wrapStorage?: (storage: Storage) => Storage;
  /** Lets a test put another authenticator beside (or instead of) the `TOKENS` ones. */
  readonly wrapAuthenticator?: (tokens: Authenticator) => Authenticator;
  /** Webhook settings of the store (transport, retry schedule, overlap, …). @default none: deliveries are queued, not sent */
  readonly webhooks?: PlantStoreWebhookOptions;
  /** Lets tenant endpoints point at 127.0.0.1 (the test receivers): `webhooks.allowPrivateDestinations` (the transport follows the store). @default false */
  readonly allowPrivateDestinations?: boolean;
  /**
   * Send webhooks with the real HTTP transport, on a fast test schedule
   * (retries after 20 and 40 ms, 2 s timeout, no jitter, 20 ms poll) unless
   * `webhooks` says otherwise. @default false: deliveries are queued, not sent
   */
  readonly deliver?: boolean;
  /** The store's clock (a compressed one for auto-disable). @default the system clock */
  readonly clock?: Clock;
  /** Which front answers: the node listener, or the fetch handler behind a node:http bridge. @default 'listener' */
  readonly front?: HttpFront;
  /** The storage's bound on parked messages per endpoint (its `parkedLimit` option). @default the storage's */
  readonly parkedLimit?: number;
}

/** A real Plant Store server on 127.0.0.1, port 0, over a fresh storage of the given kind. */
export async function startTestServer(kind: AnyStorageKind, options: TestServerOptions = {}): Promise<TestServer> {
  const folder = kind === 'sqlite' ? mkdtempSync(join(tmpdir(), 'plant-store-http-')) : undefined;
  const schemas = kind === 'postgres' ? testSchemas() : undefined;
  const parked = options.parkedLimit === undefined ? {} : { parkedLimit: options.parkedLimit };
  const raw = folder
    ? await sqliteStorage({ path: join(folder, 'plants.db'), ...parked })
    : schemas
      ? await postgresStorage({ connectionString: TEST_DATABASE_URL, schema: schemas.next(), ...parked })
      : memoryStorage(parked);
  const storage = options.wrapStorage ? options.wrapStorage(raw) : raw;
  const logs: LogEntry[] = [];
  const record =
    (level: keyof Logger) =>
    (message: string, fields?: LogFields): void => {
      logs.push({ level, message, fields });
    };
  const logger: Logger = { debug: record('debug'), info: record('info'), warn: record('warn'), error: record('error') };
  const tokens = testTokens();
  const store = createPlantStore({
    storage,
    logger,
    batchSize: options.batchSize,
    clock: options.clock,
    webhooks: webhookOptions(options),
    authenticator: options.wrapAuthenticator ? options.wrapAuthenticator(tokens) : tokens,
  });
  const {
    batchSize: _batchSize,
    wrapStorage: _wrapStorage,
    wrapAuthenticator: _wrapAuthenticator,
    webhooks: _webhooks,
    allowPrivateDestinations: _allowPrivateDestinations,
    deliver: _deliver,
    clock: _clock,
    parkedLimit: _parkedLimit,
    front = 'listener',
    ...serverOptions
  } = options;
  const server = createFrontServer(front, store, { logger, ...serverOptions });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  let closed: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    store,
    storage,
    logs,
    close() {
      closed ??= (async () => {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
        await store.close();
        if (folder) rmSync(folder, { recursive: true, force: true });
        await schemas?.dropAll();
      })();
      return closed;
    },
  };
}

function webhookOptions(options: TestServerOptions): PlantStoreWebhookOptions {
  const allowPrivateDestinations = options.allowPrivateDestinations ?? false;
  if (options.deliver !== true) return { ...options.webhooks, allowPrivateDestinations };
  // The transport refuses non-public destinations of tenant endpoints unless the store allows them (no SSRF).
  // (userAgent is only its fallback, the dispatcher sets one.)
  return {
    transport: webhookHttpTransport({ userAgent: 'plant-store-test' }),
    retrySchedule: [20, 40],
    timeoutMs: 2_000,
    jitter: 0,
    pollIntervalMs: 20,
    ...options.webhooks,
    allowPrivateDestinations,
  };
}
