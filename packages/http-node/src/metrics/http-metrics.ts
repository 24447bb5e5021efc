import { createRequire } from 'node:module';
import type { PlantStore } from '@plant-store/core';
import type * as PromClient from 'prom-client';
import type { Registry } from 'prom-client';
import { createOutboxMetrics } from './outbox-metrics.js';
import { createRequestMetrics } from './request-metrics.js';
import { createWebhookAttemptMetrics } from './webhook-attempt-metrics.js';

/** Route label of a request that matched no route (unknown path, or outside the base path): raw paths never become labels. */
export const UNMATCHED_ROUTE = 'unmatched';

export interface HttpMetrics {
  /** `route` is the template the router matched, `undefined` for none (never a raw path). */
  observe(method: string | undefined, route: string | undefined, status: number, seconds: number): void;
  scrape(): Promise<string>;
}

const require = createRequire(import.meta.url);

// prom-client's default metrics describe the process and each set starts its own observers, so listeners share one registry.
let processRegistry: Registry | undefined;

/** Metrics of one listener, on a registry of its own (never prom-client's global one), so two listeners in one process do not mix. */
export function createHttpMetrics(store: PlantStore): HttpMetrics {
  // Required here rather than imported: a listener with metrics off never loads prom-client.
  const client = require('prom-client') as typeof PromClient;
  const register = new client.Registry();
  if (processRegistry === undefined) {
    processRegistry = new client.Registry();
    client.collectDefaultMetrics({ register: processRegistry });
  }
  const ownProcessRegistry = processRegistry;
  const requests = createRequestMetrics(client, register);
  const attempted = createWebhookAttemptMetrics(client, register);
  const pruned = new client.Counter({
    name: 'plant_store_webhook_deliveries_pruned_total',
    help: "Finished webhook deliveries (with their attempts) deleted by this process: by retention, or by an operator's prune through this store.",
    registers: [register],
  });
  const outbox = createOutboxMetrics(client, register, store.allTenants.webhooks);
  // Counting must never disturb the dispatcher or the pruning that emits these.
  store.events.on('webhook.attempted', (event) => quietly(() => attempted(event)));
  store.events.on('webhook.pruned', (event) => quietly(() => pruned.inc(event.count)));
  return {
    observe(method, route, status, seconds) {
      requests.record(method, route ?? UNMATCHED_ROUTE, status, seconds);
    },
    async scrape() {
      await outbox.update();
      const [own, process] = await Promise.all([register.metrics(), ownProcessRegistry.metrics()]);
      return `${own}\n${process}`;
    },
  };
}

function quietly(count: () => void): void {
  try {
    count();
  } catch {
    // Nothing to do: a failed count is not worth a failed delivery.
  }
}
