import { describe, expect, it, vi } from 'vitest';
import type { LogFields, Logger } from '../ports/logger.js';
import type { PruneDeliveriesOptions, WebhookOutbox } from '../ports/webhook-outbox.js';
import { PRUNE_BATCH_SIZE, pruneInBatches, WebhookPruner } from './webhook-pruner.js';

/** An outbox whose `prune` deletes from a count of old deliveries (or fails when told to); nothing else is used. */
function countingOutbox(old: number) {
  const calls: PruneDeliveriesOptions[] = [];
  const state = { old, fail: 0 };
  const outbox = {
    async prune(options: PruneDeliveriesOptions) {
      calls.push(options);
      if (state.fail > 0) {
        state.fail--;
        throw new Error('database is locked');
      }
      const count = Math.min(options.limit, state.old);
      state.old -= count;
      return count;
    },
  } as unknown as WebhookOutbox;
  return { outbox, calls, state };
}

function recordingLogger() {
  const lines: { level: string; message: string; fields?: LogFields }[] = [];
  const at = (level: string) => (message: string, fields?: LogFields) => void lines.push({ level, message, fields });
  const logger: Logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
  return { logger, lines };
}

describe('pruneInBatches', () => {
  it('deletes batch after batch until a batch comes back short, reporting each', async () => {
    const { outbox, calls } = countingOutbox(2_500);
    const batches: number[] = [];
    expect(await pruneInBatches(outbox, 123, { batchSize: 1_000, onBatch: (count) => batches.push(count) })).toBe(2_500);
    expect(calls).toEqual([
      { olderThan: 123, limit: 1_000 },
      { olderThan: 123, limit: 1_000 },
      { olderThan: 123, limit: 1_000 },
    ]);
    expect(batches).toEqual([1_000, 1_000, 500]);
  });

  it('defaults to batches of PRUNE_BATCH_SIZE (200) and ends early once stopped', async () => {
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
    expect(await pruneInBatches(outbox, 1)).toBe(500);
    expect(order).toEqual(['batch', 'request', 'batch', 'batch']);
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
    await vi.waitFor(() => expect(pruned).toEqual([200, 200, 100]));
    await pruner.stop();
    expect(calls.every((call) => call.olderThan === 940_000)).toBe(true);
    expect(lines.find((line) => line.level === 'warn')).toMatchObject({ message: expect.stringContaining('trying again') });
    const after = calls.length;
    await new Promise((resolve) => setTimeout(resolve, 30));
    // Stopped: no further run.
    expect(calls.length).toBe(after);
  });
});
