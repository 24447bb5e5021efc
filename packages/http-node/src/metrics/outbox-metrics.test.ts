import { StorageError, type PendingStats, type WebhookAdmin } from '@plant-store/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createOutboxMetrics, OUTBOX_READ_TIMEOUT_MS, SLOW_READ_MS } from './outbox-metrics.js';
import * as client from 'prom-client';

afterEach(() => {
  vi.useRealTimers();
});

/** Outbox metrics on a registry of their own over `backlog`, with the clock `now` when given. */
function metricsOver(backlog: Pick<WebhookAdmin, 'pendingStats'> & Partial<Pick<WebhookAdmin, 'queueDelay'>>, now?: () => number) {
  const register = new client.Registry();
  const queueDelay = backlog.queueDelay ?? (async () => ({ all: 0, responsive: 0, slow: 0 }));
  return { metrics: createOutboxMetrics(client, register, { pendingStats: backlog.pendingStats, queueDelay }, now), register };
}

async function exposition(answer: () => Promise<PendingStats>, afterStart?: (update: Promise<void>) => Promise<void>): Promise<string> {
  const { metrics, register } = metricsOver({ pendingStats: answer });
  const update = metrics.update();
  await afterStart?.(update);
  await update;
  return register.metrics();
}

describe('queue delay', () => {
  it('shows how long due deliveries have waited for a slot, over all endpoints and by whether theirs is slow', async () => {
    const { metrics, register } = metricsOver({
      pendingStats: async () => ({ count: 3 }),
      queueDelay: async () => ({ all: 9000, responsive: 1500, slow: 9000 }),
    });
    await metrics.update();
    const text = await register.metrics();
    expect(text).toContain('plant_store_webhook_queue_delay_seconds{endpoints="all"} 9');
    expect(text).toContain('plant_store_webhook_queue_delay_seconds{endpoints="responsive"} 1.5');
    expect(text).toContain('plant_store_webhook_queue_delay_seconds{endpoints="slow"} 9');
  });
});

/** Outbox metrics over a backlog whose reads the test answers (`answer` settles the latest), with fake timeouts and the clock `now` (the real one would make a read slow or not by the machine's load). */
function answeredByHand(now: () => number) {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  let reads = 0;
  let answer: ((stats: PendingStats) => void) | undefined;
  const { metrics, register } = metricsOver({ pendingStats: () => (reads++, new Promise<PendingStats>((resolve) => (answer = resolve))) }, now);
  return { metrics, register, reads: () => reads, answer: (stats: PendingStats) => answer!(stats) };
}

/** A scrape whose read is not answered before the scrape gives up on it. */
async function scrapeTimingOut({ metrics }: ReturnType<typeof answeredByHand>): Promise<void> {
  const scrape = metrics.update();
  await vi.advanceTimersByTimeAsync(OUTBOX_READ_TIMEOUT_MS);
  await scrape;
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
    const { metrics, register } = metricsOver({
      async pendingStats() {
        if (fail) throw new StorageError('database is locked');
        return { count: 2, oldestCreatedAt: Date.now() };
      },
    });
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

  it('reads a quick backlog afresh at every scrape', async () => {
    let reads = 0;
    const clock = { ms: 0 };
    const { metrics, register } = metricsOver({ pendingStats: async () => ({ count: ++reads }) }, () => clock.ms);
    for (let scrape = 0; scrape < 3; scrape++) {
      await metrics.update();
      clock.ms += 1;
    }
    expect(reads).toBe(3);
    expect(await register.metrics()).toMatch(/^plant_store_webhook_deliveries_pending 3$/m);
  });

  it('lets a slow read answer the scrapes within a hundred times its duration, so counting a large backlog stays under 1 % of the time', async () => {
    let reads = 0;
    const clock = { ms: 0 };
    const queuedAt = Date.now() - 60_000;
    // Each read takes 150 ms of the clock, as counting a million pending deliveries does on SQLite.
    const backlog = {
      async pendingStats() {
        clock.ms += 150;
        return { count: 1_000_000 + ++reads, oldestCreatedAt: queuedAt };
      },
    };
    const { metrics, register } = metricsOver(backlog, () => clock.ms);
    const gauges = async () => {
      await metrics.update();
      const text = await register.metrics();
      return {
        pending: Number(/^plant_store_webhook_deliveries_pending (\S+)$/m.exec(text)?.[1]),
        age: Number(/^plant_store_webhook_oldest_pending_age_seconds (\S+)$/m.exec(text)?.[1]),
        up: /^plant_store_storage_up 1$/m.test(text),
      };
    };
    expect(await gauges()).toMatchObject({ pending: 1_000_001, up: true });
    clock.ms = 150 * 100 - 1;
    const kept = await gauges();
    expect(reads).toBe(1);
    expect(kept).toMatchObject({ pending: 1_000_001, up: true });
    // The oldest's age is still counted from when it was queued.
    expect(kept.age).toBeGreaterThanOrEqual(60);
    clock.ms = 150 * 100;
    expect(await gauges()).toMatchObject({ pending: 1_000_002, up: true });
    expect(reads).toBe(2);
    expect(SLOW_READ_MS).toBeLessThan(150);
  });

  it('reads again at the next scrape after a failed read', async () => {
    let reads = 0;
    const clock = { ms: 0 };
    const { metrics, register } = metricsOver(
      {
        async pendingStats() {
          clock.ms += 150;
          if (++reads === 1) throw new StorageError('database is locked');
          return { count: 5 };
        },
      },
      () => clock.ms,
    );
    await metrics.update();
    await metrics.update();
    expect(reads).toBe(2);
    expect(await register.metrics()).toMatch(/^plant_store_webhook_deliveries_pending 5$/m);
  });

  it('starts no second read while one is still running: a scrape after a timed-out read waits for that read', async () => {
    // A clock that stands still: every read is quick, so the one after the first is made afresh.
    const backlog = answeredByHand(() => 0);
    await scrapeTimingOut(backlog);
    expect(await backlog.register.metrics()).toMatch(/^plant_store_storage_up 0$/m);
    // The database is still counting: the next scrape joins that count.
    const second = backlog.metrics.update();
    expect(backlog.reads()).toBe(1);
    backlog.answer({ count: 4 });
    await second;
    expect(await backlog.register.metrics()).toMatch(/^plant_store_webhook_deliveries_pending 4$/m);
    // Once it is done, a scrape reads afresh.
    const third = backlog.metrics.update();
    expect(backlog.reads()).toBe(2);
    backlog.answer({ count: 5 });
    await third;
    expect(await backlog.register.metrics()).toMatch(/^plant_store_webhook_deliveries_pending 5$/m);
  });

  it('keeps a read that outlasted its scrape: the scrapes after it answer from it, not with storage down at each', async () => {
    const clock = { ms: 0 };
    const backlog = answeredByHand(() => clock.ms);
    // Counting a backlog of many millions takes longer than a scrape waits.
    await scrapeTimingOut(backlog);
    expect(await backlog.register.metrics()).toMatch(/^plant_store_storage_up 0$/m);
    clock.ms = 3000;
    backlog.answer({ count: 12_000_000 });
    await Promise.resolve();
    // The next scrapes, within a hundred times the read's 3 s, answer from it.
    for (const at of [15_000, 3000 * 100 - 1]) {
      clock.ms = at;
      await backlog.metrics.update();
      const text = await backlog.register.metrics();
      expect(text).toMatch(/^plant_store_storage_up 1$/m);
      expect(text).toMatch(/^plant_store_webhook_deliveries_pending 12000000$/m);
    }
    expect(backlog.reads()).toBe(1);
    clock.ms = 3000 * 100;
    void backlog.metrics.update();
    expect(backlog.reads()).toBe(2);
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
