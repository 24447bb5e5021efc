import { performance } from 'node:perf_hooks';
import type { PendingStats, WebhookAdmin } from '@plant-store/core';
import type * as PromClient from 'prom-client';
import type { Gauge, Registry } from 'prom-client';
import { withTimeout } from '../http/with-timeout.js';

/** A storage read that has not answered by then counts as failed (a scrape must not hang). */
export const OUTBOX_READ_TIMEOUT_MS = 2000;

const PENDING = 'plant_store_webhook_deliveries_pending';
const OLDEST_AGE = 'plant_store_webhook_oldest_pending_age_seconds';
const QUEUE_DELAY = 'plant_store_webhook_queue_delay_seconds';

type Backlog = Pick<WebhookAdmin, 'pendingStats' | 'queueDelay'>;

export interface OutboxMetrics {
  /** Reads the backlog into the gauges (once per scrape). Never rejects: a failed read leaves them out and sets `plant_store_storage_up` to 0. */
  update(): Promise<void>;
}

/** A backlog read that took at least this long (ms) is not repeated for `SLOW_READ_SPACING` times its duration. */
export const SLOW_READ_MS = 10;
const SLOW_READ_SPACING = 100;

/** `now` is a monotonic clock in ms. Counting the pending deliveries reads each (holding SQLite's event loop), hence the spaced reads. */
export function createOutboxMetrics(client: typeof PromClient, register: Registry, backlog: Backlog, now = () => performance.now()): OutboxMetrics {
  const up = new client.Gauge({
    name: 'plant_store_storage_up',
    help: "1 when the backlog read behind this scrape's gauges answered (a slow read stands for the scrapes shortly after it), 0 when it failed or timed out.",
    registers: [register],
  });
  // Registered only while storage answers: a backlog that could not be read is absent, not a misleading 0.
  const { pending, oldestAge, queueDelay } = backlogGauges(client);
  const read = spacedReads(backlog, now);
  return {
    async update() {
      try {
        const [stats, delay] = await Promise.all([
          read(),
          withTimeout(backlog.queueDelay(), OUTBOX_READ_TIMEOUT_MS, `storage did not answer within ${OUTBOX_READ_TIMEOUT_MS} ms`),
        ]);
        for (const endpoints of ['all', 'responsive', 'slow'] as const) queueDelay.set({ endpoints }, delay[endpoints] / 1000);
        show(register, QUEUE_DELAY, queueDelay);
        pending.set(stats.count);
        oldestAge.set(stats.oldestCreatedAt === undefined ? 0 : Math.max(0, Date.now() - stats.oldestCreatedAt) / 1000);
        up.set(1);
        show(register, PENDING, pending);
        show(register, OLDEST_AGE, oldestAge);
      } catch {
        // Storage trouble is what /readyz and the request log report; here it is the 0.
        up.set(0);
        register.removeSingleMetric(PENDING);
        register.removeSingleMetric(OLDEST_AGE);
        register.removeSingleMetric(QUEUE_DELAY);
      }
    },
  };
}

function backlogGauges(client: typeof PromClient) {
  const pending = new client.Gauge({
    name: PENDING,
    help: 'Webhook deliveries waiting to be delivered (first attempt or retry), over every process sharing the storage.',
    registers: [],
  });
  const oldestAge = new client.Gauge({
    name: OLDEST_AGE,
    help: 'Age of the oldest pending webhook delivery (since it was queued); 0 when none is pending.',
    registers: [],
  });
  const queueDelay = new client.Gauge({
    name: QUEUE_DELAY,
    help: 'How long the longest-waiting due webhook delivery has waited for an attempt slot; endpoints="responsive" above 0 for long means deliveries are held up by others.',
    labelNames: ['endpoints'],
    registers: [],
  });
  return { pending, oldestAge, queueDelay };
}

/** Reads the backlog, or answers with the last slow read while recent; one read at a time, so slow reads never pile up in the database. */
function spacedReads(backlog: Backlog, now: () => number): () => Promise<PendingStats> {
  let slow: { readonly stats: PendingStats; readonly until: number } | undefined;
  let running: Promise<PendingStats> | undefined;
  const timedRead = (started: number) =>
    backlog
      .pendingStats()
      .then((stats) => {
        const took = now() - started;
        if (took >= SLOW_READ_MS) slow = { stats, until: started + took * SLOW_READ_SPACING };
        return stats;
      })
      .finally(() => (running = undefined));
  return () => {
    const started = now();
    if (slow !== undefined && started < slow.until) return Promise.resolve(slow.stats);
    running ??= timedRead(started);
    return withTimeout(running, OUTBOX_READ_TIMEOUT_MS, `storage did not answer within ${OUTBOX_READ_TIMEOUT_MS} ms`);
  };
}

function show(register: Registry, name: string, gauge: Gauge): void {
  if (register.getSingleMetric(name) === undefined) register.registerMetric(gauge);
}
