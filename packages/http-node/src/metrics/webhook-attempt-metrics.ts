import type { PlantEvents, WebhookAttemptOutcome } from '@plant-store/core';
import type * as PromClient from 'prom-client';
import type { Registry } from 'prom-client';

/** Every outcome, so each series exists (at 0) from the first scrape: `rate()` needs a starting point. */
const OUTCOMES: Readonly<Record<WebhookAttemptOutcome, true>> = { delivered: true, retry: true, gone: true, failed: true };

const ATTEMPT_DURATION_BUCKETS: readonly number[] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30];

export function createWebhookAttemptMetrics(client: typeof PromClient, register: Registry): (event: PlantEvents['webhook.attempted']) => void {
  const attempts = new client.Counter({
    name: 'plant_store_webhook_attempts_total',
    help: 'Webhook attempts made by this process, by outcome: delivered, retry (failed, tried again later), gone (410, no more attempts), failed (no attempt left).',
    labelNames: ['outcome'],
    registers: [register],
  });
  const duration = new client.Histogram({
    name: 'plant_store_webhook_attempt_duration_seconds',
    help: 'Duration of webhook attempts, by outcome.',
    labelNames: ['outcome'],
    buckets: [...ATTEMPT_DURATION_BUCKETS],
    registers: [register],
  });
  for (const outcome of Object.keys(OUTCOMES)) {
    attempts.labels(outcome).inc(0);
    duration.zero({ outcome });
  }
  return (event) => {
    attempts.labels(event.outcome).inc();
    duration.labels(event.outcome).observe(event.durationMs / 1000);
  };
}
