import type { Clock } from '../ports/clock.js';
import type { Logger } from '../ports/logger.js';
import type { WebhookOutbox } from '../ports/webhook-outbox.js';
import { prunePacing, yieldToEventLoop, type PrunePacingOptions } from './prune-pacing.js';

/** Most deliveries deleted per storage transaction, however quick the batches are. */
export const PRUNE_BATCH_MAX = 1_000;

/** Deliveries in the first batch, before any batch was timed. */
export const PRUNE_BATCH_SIZE = 200;

/** How long one batch should hold the event loop (a synchronous driver makes requests wait for it), in ms: half of 2 ms, as costs vary per batch. */
export const PRUNE_BATCH_BUDGET_MS = 1;

/** The size of the next prune batch, between 1 and `max`: it shrinks at once after a batch that took too long, and at most doubles per batch (one quick batch must not make the next hold the loop for many budgets). */
export class PruneBatchSize {
  readonly #max: number;
  #size: number;

  constructor(max: number = PRUNE_BATCH_MAX) {
    this.#max = Math.max(1, Math.min(PRUNE_BATCH_MAX, Math.trunc(max)));
    this.#size = Math.min(PRUNE_BATCH_SIZE, this.#max);
  }

  get current(): number {
    return this.#size;
  }

  /** Learns from a batch that deleted `count` deliveries (asked for `limit`) and held the event loop for `heldMs`. */
  record(limit: number, count: number, heldMs: number): void {
    // A short batch (a run's last) is mostly fixed cost: it says little about the cost per delivery.
    if (count < limit) return;
    const fits = heldMs > 0 ? Math.floor((count * PRUNE_BATCH_BUDGET_MS) / heldMs) : Number.POSITIVE_INFINITY;
    this.#size = Math.max(1, Math.min(this.#max, 2 * this.#size, fits));
  }
}

export interface PruneInBatchesOptions {
  /** Sizes the batches, and learns from them (a pruner keeps one across its runs). @default a new PruneBatchSize() */
  readonly batchSize?: PruneBatchSize;
  /** Asked between batches: `true` ends the run early (the store is closing). @default never */
  readonly stopped?: () => boolean;
  /** Called with each batch's count, as soon as it is committed. @default nothing */
  readonly onBatch?: (count: number) => void;
  /** A monotonic clock in ms that times how long each batch held the event loop. @default performance.now */
  readonly now?: () => number;
  /** Runs between batches, given how long the last one held the event loop. @default yields to the event loop */
  readonly between?: (heldMs: number) => Promise<void>;
}

/** Deletes the deliveries that finished before `olderThan` (epoch ms) in batches, yielding to the event loop between them; resolves with how many. */
export async function pruneInBatches(outbox: WebhookOutbox, olderThan: number, options: PruneInBatchesOptions = {}): Promise<number> {
  const sizer = options.batchSize ?? new PruneBatchSize();
  const now = options.now ?? (() => performance.now());
  let total = 0;
  for (;;) {
    const limit = sizer.current;
    const started = now();
    // What a synchronous driver does happens before `prune` hands back its promise: that is the time the loop was held.
    const batch = outbox.prune({ olderThan, limit });
    const heldMs = now() - started;
    const count = await batch;
    sizer.record(limit, count, heldMs);
    total += count;
    if (count > 0) options.onBatch?.(count);
    if (count < limit || options.stopped?.()) return total;
    await (options.between ?? yieldToEventLoop)(heldMs);
    if (options.stopped?.()) return total;
  }
}

/** The storage's reclaim of pruned space, when it has one; a failure is logged, never thrown (the deletes are committed, and the next reclaim covers them). */
export async function reclaimPrunedSpace(outbox: WebhookOutbox, logger: Logger, signal?: AbortSignal): Promise<void> {
  if (!outbox.reclaimSpace) return;
  try {
    await outbox.reclaimSpace({ signal });
  } catch (error) {
    logger.warn('reclaiming the space of pruned webhook deliveries failed; trying again after the next run that prunes', { error });
  }
}

/** `now` times the batches and the run; `sleep` makes the pauses between batches. */
export interface WebhookPrunerOptions extends Pick<PruneInBatchesOptions, 'now'>, Pick<PrunePacingOptions, 'sleep'> {
  readonly outbox: WebhookOutbox;
  readonly clock: Clock;
  readonly logger: Logger;
  /** How long a finished delivery is kept, in ms. */
  readonly retentionMs: number;
  /** Time between runs, in ms. @default half the retention, from 1 s up to 1 min */
  readonly intervalMs?: number;
  /** Most deliveries per transaction (batches adapt below it, see `PruneBatchSize`). @default PRUNE_BATCH_MAX */
  readonly maxBatchSize?: number;
  /** Receives each committed batch's count (metrics). @default nothing */
  readonly onPruned?: (count: number) => void;
}

/** Deletes finished deliveries older than the retention, one run per interval in paced batches, then reclaims the space; failures wait for the next run. */
export class WebhookPruner {
  readonly #options: WebhookPrunerOptions;
  readonly #intervalMs: number;
  /** Kept across runs: each run starts at the size the last one ended with. */
  readonly #batchSize: PruneBatchSize;
  /** Aborted by `stop()`: a reclaim in progress (a long VACUUM) does not hold up the store's close. */
  readonly #stopping = new AbortController();
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;

  constructor(options: WebhookPrunerOptions) {
    this.#options = options;
    this.#intervalMs = options.intervalMs ?? Math.min(60_000, Math.max(1_000, Math.floor(options.retentionMs / 2)));
    this.#batchSize = new PruneBatchSize(options.maxBatchSize);
  }

  start(): void {
    if (this.#stopping.signal.aborted || this.#timer) return;
    this.#schedule();
  }

  /** Cancels the next run and waits for a run in progress to end after its current batch (cutting its reclaim short). Idempotent. */
  async stop(): Promise<void> {
    this.#stopping.abort();
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }

  #schedule(): void {
    this.#timer = setTimeout(() => {
      this.#running = this.#run().finally(() => {
        this.#running = undefined;
        if (!this.#stopping.signal.aborted) this.#schedule();
      });
    }, this.#intervalMs);
    // A host process is not kept alive by retention alone.
    this.#timer.unref();
  }

  async #run(): Promise<void> {
    const { outbox, clock, logger, retentionMs, onPruned } = this.#options;
    const now = this.#options.now ?? (() => performance.now());
    const signal = this.#stopping.signal;
    const between = prunePacing({ now, deadline: now() + this.#intervalMs, signal, sleep: this.#options.sleep });
    let pruned: number;
    try {
      pruned = await pruneInBatches(outbox, clock.now() - retentionMs, {
        batchSize: this.#batchSize,
        stopped: () => this.#stopping.signal.aborted,
        onBatch: onPruned,
        now,
        between,
      });
    } catch (error) {
      logger.warn('pruning finished webhook deliveries failed; trying again at the next run', { error });
      return;
    }
    if (pruned === 0) return;
    logger.debug('pruned finished webhook deliveries', { pruned });
    if (!this.#stopping.signal.aborted) await reclaimPrunedSpace(outbox, logger, signal);
  }
}
