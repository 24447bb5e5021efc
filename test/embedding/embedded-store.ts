import Database from 'better-sqlite3';
import { createPlantStore, type PlantStore, type PlantEvents } from '@plant-store/core';
import type { Storage } from '@plant-store/core/adapter';
import { webhookHttpTransport } from '@plant-store/http-node/webhook-transport';
import type { WebhookReceiver } from '../support/webhook-receiver.js';

/** A SQLite connection to `file` as a host opens it: WAL, waiting for locks, its own integer reading (numbers) left as the host set it. */
export function hostDatabase(file: string): Database.Database {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 2000');
  return db;
}

/**
 * A store on the given storage whose one operator subscription posts `plant.created` to the receiver's /hook. The
 * fallback poll is an hour (`send` false: it queues but sends nothing): a delivery only goes out promptly when the commit woke the dispatcher (NOTIFY, or
 * `committed()`), so a test that waits for it proves the wake-up.
 */
export function embeddedStore(storage: Storage, receiver: WebhookReceiver, send = true): { store: PlantStore; created: PlantEvents['plant.created'][] } {
  const store = createPlantStore({
    storage,
    webhooks: {
      subscriptions: [{ url: receiver.url('/hook'), secret: receiver.secret }],
      ...(send ? { transport: webhookHttpTransport() } : {}),
      pollIntervalMs: 3_600_000,
      retrySchedule: [50, 100, 200],
    },
  });
  const created: PlantEvents['plant.created'][] = [];
  store.events.on('plant.created', (event) => created.push(event));
  return { store, created };
}

/** The ids of the plants whose `plant.created` webhooks the receiver got at /hook, as strings, sorted. */
export function hookedIds(receiver: WebhookReceiver): string[] {
  return receiver
    .at('/hook')
    .map((request) => /"id":(-?\d+)/.exec(request.body)![1]!)
    .sort();
}
