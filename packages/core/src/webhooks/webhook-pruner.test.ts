import { describe, expect, it, vi } from 'vitest';
import type { LogFields, Logger } from '../ports/logger.js';
import type { PruneDeliveriesOptions, ReclaimSpaceOptions, WebhookOutbox } from '../ports/webhook-outbox.js';
import { WebhookAdmin } from './webhook-admin.js';
import { PRUNE_BATCH_BUDGET_MS, PRUNE_BATCH_MAX, PRUNE_BATCH_SIZE, PruneBatchSize, pruneInBatches, WebhookPruner } from './webhook-pruner.js';

/**
 * An outbox whose `prune` deletes from a count of old deliveries (or fails when told to), advancing `clock` by
 * `msPerDelivery` for each one it deletes before it returns (as a synchronous driver holds the event loop), and
 * whose `reclaimSpace` is counted (and fails when told to); nothing else is used.
 */
function countingOutbox(old: number, msPerDelivery = 0) {
  const calls: PruneDeliveriesOptions[] = [];
  const reclaims: (ReclaimSpaceOptions | undefined)[] = [];
  const state = { old, fail: 0, failReclaim: 0 };
  const clock = { ms: 0 };
  const outbox = {
    prune(options: PruneDeliveriesOptions) {
      calls.push(options);
      if (state.fail > 0) {
        state.fail--;
        return Promise.reject(new Error('database is locked'));
      }
      const count = Math.min(options.limit, state.old);
      state.old -= count;
      clock.ms += count * msPerDelivery;
      return Promise.resolve(count);
    },
    async reclaimSpace(options?: ReclaimSpaceOptions) {
      reclaims.push(options);
      if (state.failReclaim > 0) {
        state.failReclaim--;
        throw new Error('Connection terminated unexpectedly');
      }
    },
  } as unknown as WebhookOutbox;
  return { outbox, calls, reclaims, state, now: () => clock.ms };
}

function recordingLogger() {
  const lines: { level: string; message: string; fields?: LogFields }[] = [];
  const at = (level: string) => (message: string, fields?: LogFields) => void lines.push({ level, message, fields });
  const logger: Logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
  return { logger, lines };
}

describe('pruneInBatches', () => {
  it('deletes batch after batch until a batch comes back short, reporting each', async () => {
    const { outbox, calls, now } = countingOutbox(2_500);
    const batches: number[] = [];
    expect(await pruneInBatches(outbox, 123, { now, onBatch: (count) => batches.push(count) })).toBe(2_500);
    expect(calls.map((call) => call.olderThan)).toEqual([123, 123, 123, 123, 123]);
    expect(batches).toEqual([200, 400, 800, 1_000, 100]);
  });

  it('starts at PRUNE_BATCH_SIZE (200) and ends early once stopped', async () => {
    expect(PRUNE_BATCH_SIZE).toBe(200);
    const { outbox, calls } = countingOutbox(10_000);
    let stop = false;
    const pruned = await pruneInBatches(outbox, 1, { stopped: () => stop, onBatch: () => (stop = true) });
    expect(pruned).toBe(200);
    expect(calls).toEqual([{ olderThan: 1, limit: 200 }]);
  });

  it('yields to the event loop between batches: work queued during one batch runs before the next', async () => {
    const order: string[] = [];
    let old = 500;
    const outbox = {
      async prune(options: PruneDeliveriesOptions) {
        order.push('batch');
        if (order.length === 1) setImmediate(() => order.push('request'));
        const count = Math.min(options.limit, old);
        old -= count;
        return count;
      },
    } as unknown as WebhookOutbox;
    expect(await pruneInBatches(outbox, 1, { now: () => 0 })).toBe(500);
    // Batches of 200, then 400 (they held the loop for nothing).
    expect(order).toEqual(['batch', 'request', 'batch']);
  });
});

describe('PruneBatchSize', () => {
  it('follows how long full batches held the event loop: at once down, at most twofold up, never outside 1 to 1,000', () => {
    expect([PRUNE_BATCH_BUDGET_MS, PRUNE_BATCH_MAX]).toEqual([1, 1_000]);
    const size = new PruneBatchSize();
    expect(size.current).toBe(200);
    size.record(200, 200, 4); // 4 ms for 200: 50 fit in the budget
    expect(size.current).toBe(50);
    size.record(50, 50, 0.05); // quick now: grows, but only twofold
    expect(size.current).toBe(100);
    size.record(100, 100, 0); // held nothing (an asynchronous driver): twofold again…
    size.record(200, 200, 0);
    size.record(400, 400, 0);
    size.record(800, 800, 0);
    expect(size.current).toBe(1_000); // …up to 1,000
    size.record(1_000, 1_000, 50); // one slow batch (a checkpoint, a busy disk): 20
    expect(size.current).toBe(20);
    size.record(20, 20, 100);
    expect(size.current).toBe(1); // never below one
    size.record(1, 0, 0); // an empty or short batch teaches nothing
    size.record(1, 1, 0);
    expect(size.current).toBe(2);
  });

  it('stays within a smaller maximum, and never above 1,000 whatever it is given', () => {
    const small = new PruneBatchSize(50);
    expect(small.current).toBe(50);
    small.record(50, 50, 0);
    expect(small.current).toBe(50);
    const large = new PruneBatchSize(5_000);
    for (let i = 0; i < 5; i++) large.record(large.current, large.current, 0);
    expect(large.current).toBe(1_000);
  });
});

describe('pruneInBatches, timed', () => {
  it('shrinks batches that hold the event loop too long, and keeps what it learned for the next run', async () => {
    // 0.02 ms per delivery: 50 fit in the 1 ms budget.
    const { outbox, calls, now } = countingOutbox(300, 0.02);
    const batchSize = new PruneBatchSize();
    expect(await pruneInBatches(outbox, 1, { batchSize, now })).toBe(300);
    expect(calls.map((call) => call.limit)).toEqual([200, 50, 50, 50]);
    expect(batchSize.current).toBe(50);
  });
});

describe('WebhookPruner', () => {
  it('prunes what finished before now minus the retention, run after run; a failed run is logged and the next one tries again', async () => {
    const { outbox, calls, state } = countingOutbox(500);
    state.fail = 1;
    const { logger, lines } = recordingLogger();
    const pruned: number[] = [];
    const pruner = new WebhookPruner({
      outbox,
      clock: { now: () => 1_000_000 },
      logger,
      retentionMs: 60_000,
      intervalMs: 5,
      onPruned: (count) => pruned.push(count),
    });
    pruner.start();
    const sum = (counts: number[]) => counts.reduce((total, count) => total + count, 0);
    await vi.waitFor(() => expect(sum(pruned)).toBe(500));
    await pruner.stop();
    expect(calls.every((call) => call.olderThan === 940_000)).toBe(true);
    expect(lines.find((line) => line.level === 'warn')).toMatchObject({ message: expect.stringContaining('trying again') });
    const after = calls.length;
    await new Promise((resolve) => setTimeout(resolve, 30));
    // Stopped: no further run.
    expect(calls.length).toBe(after);
  });

  it('after a run that deleted deliveries, reclaims their space once; a failed reclaim is logged once, and runs go on', async () => {
    const { outbox, calls, reclaims, state } = countingOutbox(250);
    state.failReclaim = 1;
    const { logger, lines } = recordingLogger();
    const pruned: number[] = [];
    const pruner = new WebhookPruner({
      outbox,
      clock: { now: () => 1_000_000 },
      logger,
      retentionMs: 60_000,
      intervalMs: 5,
      onPruned: (count) => pruned.push(count),
    });
    pruner.start();
    await vi.waitFor(() => expect(reclaims).toHaveLength(1));
    // Runs go on; those that find nothing to delete reclaim nothing.
    const callsSoFar = calls.length;
    await vi.waitFor(() => expect(calls.length).toBeGreaterThanOrEqual(callsSoFar + 3));
    expect(reclaims).toHaveLength(1);
    state.old = 10;
    await vi.waitFor(() => expect(reclaims).toHaveLength(2));
    await pruner.stop();
    expect(pruned.reduce((total, count) => total + count, 0)).toBe(260);
    expect(reclaims[0]?.signal).toBeInstanceOf(AbortSignal);
    expect(lines.filter((line) => line.level === 'warn')).toEqual([
      { level: 'warn', message: expect.stringContaining('reclaiming the space of pruned webhook deliveries failed'), fields: { error: expect.any(Error) } },
    ]);
  });

  it('paces the batches of a run, and stop() ends a pause at once', async () => {
    // 0.01 ms per delivery: 100 fit in the budget; a batch holds the loop for 1 ms, and is followed by 49 ms.
    const { outbox, calls, now } = countingOutbox(1_000, 0.01);
    const pauses: number[] = [];
    let paused: (() => void) | undefined;
    const pruner = new WebhookPruner({
      outbox,
      clock: { now: () => 1_000_000 },
      logger: recordingLogger().logger,
      retentionMs: 60_000,
      // Also the run's deadline for its pauses: far beyond what these take.
      intervalMs: 200,
      now,
      sleep: (ms, signal) =>
        new Promise<void>((resolve) => {
          pauses.push(ms);
          // The third pause lasts until the pruner stops.
          if (pauses.length < 3) return resolve();
          paused = resolve;
          signal?.addEventListener('abort', () => resolve());
        }),
    });
    pruner.start();
    await vi.waitFor(() => expect(paused).toBeDefined());
    await pruner.stop();
    expect(calls.map((call) => call.limit)).toEqual([200, 100, 100]);
    expect(pauses.map((ms) => Math.round(ms))).toEqual([98, 49, 49]);
  });

  it('stop() cuts a reclaim in progress short instead of waiting for it', async () => {
    const { outbox } = countingOutbox(10);
    let signal: AbortSignal | undefined;
    outbox.reclaimSpace = (options) =>
      new Promise<void>((resolve) => {
        signal = options?.signal;
        // A VACUUM that would run for a long time: it ends when told to.
        signal?.addEventListener('abort', () => resolve());
      });
    const pruner = new WebhookPruner({ outbox, clock: { now: () => 1_000_000 }, logger: recordingLogger().logger, retentionMs: 60_000, intervalMs: 5 });
    pruner.start();
    await vi.waitFor(() => expect(signal).toBeDefined());
    await pruner.stop();
    expect(signal?.aborted).toBe(true);
  });
});

describe("the operator's prune (WebhookAdmin)", () => {
  it('reclaims the space after deleting, as the pruner does: a failure is logged, and the count still returned', async () => {
    const { outbox, reclaims, state } = countingOutbox(300);
    state.failReclaim = 1;
    const { logger, lines } = recordingLogger();
    const admin = new WebhookAdmin({ outbox, clock: { now: () => 1_000_000 }, endpoints: {} as never, logger });
    expect(await admin.prune({ olderThan: 0 })).toBe(300);
    expect(reclaims).toHaveLength(1);
    expect(lines.filter((line) => line.level === 'warn')).toHaveLength(1);
    // Nothing deleted: nothing to reclaim.
    expect(await admin.prune({ olderThan: 0 })).toBe(0);
    expect(reclaims).toHaveLength(1);
  });
});
