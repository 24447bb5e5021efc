import { createRequire } from 'node:module';
import type { PlantStore } from '@plant-store/core';
import type * as PromClient from 'prom-client';
import { createOutboxMetrics } from './outbox-metrics.js';
import { processMetricsRegistry } from './process-metrics.js';
import { createRequestMetrics } from './request-metrics.js';
import { createWebhookAttemptMetrics } from './webhook-attempt-metrics.js';
import { createWebhookPruneMetrics } from './webhook-prune-metrics.js';

/** Route label of a request that matched no route (unknown path, or outside the base path): raw paths never become labels. */
export const UNMATCHED_ROUTE = 'unmatched';

/** The metrics of one listener. */
export interface HttpMetrics {
  /** Records one answered request; `route` is the template the router matched, `undefined` for none (never a raw path). */
  observe(method: string | undefined, route: string | undefined, status: number, seconds: number): void;
  /** The Prometheus text exposition: this listener's metrics (the backlog read from storage now) and the process metrics. */
  scrape(): Promise<string>;
}

const require = createRequire(import.meta.url);

/**
 * Metrics of one listener, on a registry of its own (never prom-client's
 * global one), so two stores or listeners in one process do not mix.
 */
export function createHttpMetrics(store: PlantStore): HttpMetrics {
  // Required here rather than imported: a listener with metrics off never loads prom-client.
  const client = require('prom-client') as typeof PromClient;
  const register = new client.Registry();
  const processRegistry = processMetricsRegistry(client);
  const requests = createRequestMetrics(client, register);
  const attempted = createWebhookAttemptMetrics(client, register);
  const pruned = createWebhookPruneMetrics(client, register);
  const outbox = createOutboxMetrics(client, register, store.allTenants.webhooks);
  store.events.on('webhook.attempted', (event) => {
    try {
      attempted(event);
    } catch {
      // Counting must never disturb the dispatcher that emits this.
    }
  });
  store.events.on('webhook.pruned', (event) => {
    try {
      pruned(event);
    } catch {
      // Counting must never disturb the pruning that emits this.
    }
  });
  return {
    observe(method, route, status, seconds) {
      requests.record(method, route ?? UNMATCHED_ROUTE, status, seconds);
    },
    async scrape() {
      await outbox.update();
      const [own, process] = await Promise.all([register.metrics(), processRegistry.metrics()]);
      return `${own}\n${process}`;
    },
  };
}
