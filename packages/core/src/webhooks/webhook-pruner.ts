import type { Clock } from '../ports/clock.js';
import type { Logger } from '../ports/logger.js';
import type { WebhookOutbox } from '../ports/webhook-outbox.js';

/**
 * Most deliveries deleted per storage transaction. Each batch is one short
 * transaction, so claims, attempt records and plant writes queued meanwhile
 * run between batches instead of waiting for the whole backlog. Small,
 * because on SQLite a batch runs on the event loop: 200 deletes (with their
 * attempts and the pages they free) hold it for about a millisecond, where
 * 1,000 made requests that arrived meanwhile wait several times their p99.
 */
export const PRUNE_BATCH_SIZE = 200;

export interface PruneInBatchesOptions {
  /** Deliveries per transaction. @default PRUNE_BATCH_SIZE */
  readonly batchSize?: number;
  /** Asked between batches: `true` ends the run early (the store is closing). @default never */
  readonly stopped?: () => boolean;
  /** Called with each batch's count, as soon as it is committed. @default nothing */
  readonly onBatch?: (count: number) => void;
}

/**
 * Deletes every finished delivery that finished before `olderThan` (epoch ms),
 * batch after batch, yielding to the event loop between batches so requests
 * and deliveries keep their turn; resolves with how many were deleted.
 */
export async function pruneInBatches(outbox: WebhookOutbox, olderThan: number, options: PruneInBatchesOptions = {}): Promise<number> {
  const limit = Math.max(1, options.batchSize ?? PRUNE_BATCH_SIZE);
  let total = 0;
  for (;;) {
    const count = await outbox.prune({ olderThan, limit });
    total += count;
    if (count > 0) options.onBatch?.(count);
    if (count < limit || options.stopped?.()) return total;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

export interface WebhookPrunerOptions {
  readonly outbox: WebhookOutbox;
  /** Dates the cutoff: deliveries that finished before `now - retentionMs` are deleted. */
  readonly clock: Clock;
  readonly logger: Logger;
  /** How long a finished delivery is kept, in ms. */
  readonly retentionMs: number;
  /** Time between runs, in ms. @default half the retention, from 1 s up to 1 min */
  readonly intervalMs?: number;
  /** Deliveries per transaction. @default PRUNE_BATCH_SIZE */
  readonly batchSize?: number;
  /** Receives each committed batch's count (metrics). @default nothing */
  readonly onPruned?: (count: number) => void;
}

/**
 * Deletes finished deliveries older than the retention in the background:
 * one run per interval, each run in batches until nothing old is left.
 * Storage failures are logged and the next run tries again; nothing is thrown.
 */
export class WebhookPruner {
  readonly #options: WebhookPrunerOptions;
  readonly #intervalMs: number;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #stopped = false;

  constructor(options: WebhookPrunerOptions) {
    this.#options = options;
    this.#intervalMs = options.intervalMs ?? Math.min(60_000, Math.max(1_000, Math.floor(options.retentionMs / 2)));
  }

  /** Schedules the first run one interval from now. */
  start(): void {
    if (this.#stopped || this.#timer) return;
    this.#schedule();
  }

  /** Cancels the next run and waits for a run in progress to end after its current batch. Idempotent. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }

  #schedule(): void {
    this.#timer = setTimeout(() => {
      this.#running = this.#run().finally(() => {
        this.#running = undefined;
        if (!this.#stopped) this.#schedule();
      });
    }, this.#intervalMs);
    // A host process is not kept alive by retention alone.
    this.#timer.unref();
  }

  async #run(): Promise<void> {
    const { outbox, clock, logger, retentionMs, batchSize, onPruned } = this.#options;
    try {
      const pruned = await pruneInBatches(outbox, clock.now() - retentionMs, {
        batchSize,
        stopped: () => this.#stopped,
        onBatch: onPruned,
      });
      if (pruned > 0) logger.debug('pruned finished webhook deliveries', { pruned });
    } catch (error) {
      logger.warn('pruning finished webhook deliveries failed; trying again at the next run', { error });
    }
  }
}
