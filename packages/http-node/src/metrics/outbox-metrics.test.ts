import { StorageError, type PendingStats } from '@plant-store/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createOutboxMetrics, OUTBOX_READ_TIMEOUT_MS } from './outbox-metrics.js';
import { promClient } from './prom-client-module.js';

afterEach(() => {
  vi.useRealTimers();
});

async function exposition(answer: () => Promise<PendingStats>, afterStart?: (update: Promise<void>) => Promise<void>): Promise<string> {
  const client = promClient();
  const register = new client.Registry();
  const metrics = createOutboxMetrics(client, register, { pendingStats: answer });
  const update = metrics.update();
  await afterStart?.(update);
  await update;
  return register.metrics();
}

describe('createOutboxMetrics', () => {
  it('reports the pending count and the age of the oldest in seconds, and storage up', async () => {
    const text = await exposition(async () => ({ count: 7, oldestCreatedAt: Date.now() - 90_000 }));
    expect(text).toMatch(/^plant_store_webhook_deliveries_pending 7$/m);
    const age = Number(/^plant_store_webhook_oldest_pending_age_seconds (\S+)$/m.exec(text)?.[1]);
    expect(age).toBeGreaterThanOrEqual(90);
    expect(age).toBeLessThan(90 + 60);
    expect(text).toMatch(/^plant_store_storage_up 1$/m);
  });

  it('reports an age of 0 when nothing is pending', async () => {
    const text = await exposition(async () => ({ count: 0 }));
    expect(text).toMatch(/^plant_store_webhook_deliveries_pending 0$/m);
    expect(text).toMatch(/^plant_store_webhook_oldest_pending_age_seconds 0$/m);
  });

  it('leaves the backlog out and reports storage down when the read fails, and recovers', async () => {
    let fail = true;
    const client = promClient();
    const register = new client.Registry();
    const metrics = createOutboxMetrics(
      client,
      register,
      {
        async pendingStats() {
          if (fail) throw new StorageError('database is locked');
          return { count: 2, oldestCreatedAt: Date.now() };
        },
      },
    );
    await metrics.update();
    let text = await register.metrics();
    expect(text).toMatch(/^plant_store_storage_up 0$/m);
    expect(text).not.toContain('plant_store_webhook_deliveries_pending');
    expect(text).not.toContain('plant_store_webhook_oldest_pending_age_seconds');
    fail = false;
    await metrics.update();
    text = await register.metrics();
    expect(text).toMatch(/^plant_store_storage_up 1$/m);
    expect(text).toMatch(/^plant_store_webhook_deliveries_pending 2$/m);
  });

  it('gives up on a read that hangs, so a scrape still answers', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const text = await exposition(
      () => new Promise<PendingStats>(() => {}),
      async () => {
        await vi.advanceTimersByTimeAsync(OUTBOX_READ_TIMEOUT_MS);
      },
    );
    expect(text).toMatch(/^plant_store_storage_up 0$/m);
    expect(text).not.toContain('plant_store_webhook_deliveries_pending');
  });
});
