import type { PlantStore } from '@plant-store/core';
import type { Registry } from 'prom-client';
import { routeTemplate, type RouteTemplate } from '../routes/route-request.js';
import { createOutboxMetrics, type OutboxMetrics } from './outbox-metrics.js';
import { processMetricsRegistry } from './process-metrics.js';
import { assertPromClientInstalled, promClient } from './prom-client-module.js';
import { createRequestMetrics, type RequestMetrics } from './request-metrics.js';
import { createWebhookAttemptMetrics } from './webhook-attempt-metrics.js';
import { createWebhookPruneMetrics } from './webhook-prune-metrics.js';

/** Route label of a request that matched no route (unknown path, or outside the base path): raw paths never become labels. */
export const UNMATCHED_ROUTE = 'unmatched';

/** The metrics of one listener. */
export interface HttpMetrics {
  /** Records one answered request; `path` is relative to the base path (`undefined` outside it); `route`, when the router already knows it, is its template. */
  observe(method: string | undefined, path: string | undefined, status: number, seconds: number, route?: RouteTemplate): void;
  /** The Prometheus text exposition: this listener's metrics (the backlog read from storage now) and the process metrics. */
  scrape(): Promise<string>;
}

interface Instruments {
  readonly register: Registry;
  readonly requests: RequestMetrics;
  readonly attempted: ReturnType<typeof createWebhookAttemptMetrics>;
  readonly pruned: ReturnType<typeof createWebhookPruneMetrics>;
  readonly outbox: OutboxMetrics;
}

/**
 * Metrics of one listener, on a registry of its own (never prom-client's
 * global one), so two stores or listeners in one process do not mix. The
 * instruments are built on first use or right after start-up, whichever
 * comes first (see `promClient`).
 */
export function createHttpMetrics(store: PlantStore): HttpMetrics {
  assertPromClientInstalled();
  let instruments: Instruments | undefined;
  const built = (): Instruments => (instruments ??= build(store));
  setImmediate(() => {
    try {
      built();
    } catch {
      // Thrown again, and answered as a 500, by the first scrape.
    }
  });
  store.events.on('webhook.attempted', (event) => {
    try {
      built().attempted(event);
    } catch {
      // Counting must never disturb the dispatcher that emits this.
    }
  });
  store.events.on('webhook.pruned', (event) => {
    try {
      built().pruned(event);
    } catch {
      // Counting must never disturb the pruning that emits this.
    }
  });
  return {
    observe(method, path, status, seconds, route) {
      built().requests.record(method, route ?? routeTemplate(path) ?? UNMATCHED_ROUTE, status, seconds);
    },
    async scrape() {
      const { register, outbox } = built();
      await outbox.update();
      const [own, process] = await Promise.all([register.metrics(), processMetricsRegistry().metrics()]);
      return `${own}\n${process}`;
    },
  };
}

function build(store: PlantStore): Instruments {
  const client = promClient();
  const register = new client.Registry();
  processMetricsRegistry(); // starts the process collectors with the rest
  return {
    register,
    requests: createRequestMetrics(client, register),
    attempted: createWebhookAttemptMetrics(client, register),
    pruned: createWebhookPruneMetrics(client, register),
    outbox: createOutboxMetrics(client, register, store.webhooks),
  };
}
