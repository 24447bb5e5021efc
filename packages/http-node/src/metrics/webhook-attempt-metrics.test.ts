import { describe, expect, it } from 'vitest';
import * as client from 'prom-client';
import { createWebhookAttemptMetrics } from './webhook-attempt-metrics.js';

describe('createWebhookAttemptMetrics', () => {
  it('starts every outcome at 0, then counts and times attempts by outcome', async () => {
    const register = new client.Registry();
    const attempted = createWebhookAttemptMetrics(client, register);
    let text = await register.metrics();
    for (const outcome of ['delivered', 'retry', 'gone', 'failed']) {
      expect(text).toContain(`plant_store_webhook_attempts_total{outcome="${outcome}"} 0`);
      expect(text).toContain(`plant_store_webhook_attempt_duration_seconds_count{outcome="${outcome}"} 0`);
    }
    attempted({ outcome: 'retry', durationMs: 1500 });
    attempted({ outcome: 'retry', durationMs: 20 });
    attempted({ outcome: 'delivered', durationMs: 3 });
    text = await register.metrics();
    expect(text).toContain('plant_store_webhook_attempts_total{outcome="retry"} 2');
    expect(text).toContain('plant_store_webhook_attempts_total{outcome="delivered"} 1');
    expect(text).toContain('plant_store_webhook_attempts_total{outcome="gone"} 0');
    expect(text).toContain('plant_store_webhook_attempt_duration_seconds_sum{outcome="retry"} 1.52');
    expect(text).toContain('plant_store_webhook_attempt_duration_seconds_bucket{le="1",outcome="retry"} 1');
    expect(text).toContain('plant_store_webhook_attempt_duration_seconds_bucket{le="2.5",outcome="retry"} 2');
  });
});
