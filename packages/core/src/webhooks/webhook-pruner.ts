import type { Clock } from '../ports/clock.js';
import type { Logger } from '../ports/logger.js';
import type { WebhookOutbox } from '../ports/webhook-outbox.js';
import { prunePacing, yieldToEventLoop } from './prune-pacing.js';

/** Most deliveries deleted per storage transaction, however quick the batches are. */
export const PRUNE_BATCH_MAX = 1_000;

/** Deliveries in the first batch, before any batch was timed. */
export const PRUNE_BATCH_SIZE = 200;

/**
 * How long one batch should hold the event loop, in ms. On SQLite a batch
 * runs on the event loop (better-sqlite3 is synchronous), so a request that
 * arrives meanwhile waits for the rest of it: the batch size follows how long
 * the last full batch held the loop, so that a slower machine, a larger
 * database or a busier disk make smaller batches instead of longer waits.
 * Half the two milliseconds a batch should stay under, since one batch can
 * cost more per delivery than the last (a cold page, a busy disk). A
 * storage whose driver is asynchronous (PostgreSQL) holds the loop for next
 * to nothing, and its batches grow to `PRUNE_BATCH_MAX`.
 */
export const PRUNE_BATCH_BUDGET_MS = 1;

/**
 * The size of the next prune batch: it starts at `PRUNE_BATCH_SIZE` and
 * follows the time full batches held the event loop, between 1 and `max`.
 * It shrinks at once when a batch took too long, and grows at most twofold
 * per batch, so one batch that happened to be quick does not make the next
 * one hold the loop for many times the budget.
 */
export class PruneBatchSize {
  readonly #max: number;
  #size: number;

  /** `max`: most deliveries per transaction, from 1 up to `PRUNE_BATCH_MAX`. @default PRUNE_BATCH_MAX */
  constructor(max: number = PRUNE_BATCH_MAX) {
    this.#max = Math.max(1, Math.min(PRUNE_BATCH_MAX, Math.trunc(max)));
    this.#size = Math.min(PRUNE_BATCH_SIZE, this.#max);
  }

  /** Deliveries the next batch deletes at most. */
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

/**
 * Deletes every finished delivery that finished before `olderThan` (epoch ms),
 * batch after batch (each sized by `batchSize`), yielding to the event loop
 * between batches so requests and deliveries keep their turn; resolves with
 * how many were deleted.
 */
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

/**
 * After a pruning run that deleted deliveries: the storage's reclaim of their
 * space (PostgreSQL's VACUUM, SQLite's incremental vacuum), when it has one.
 * A failure is logged once, as a warning, and never thrown: the deletes are
 * committed already, and the next run's reclaim covers this run's rows too.
 */
export async function reclaimPrunedSpace(outbox: WebhookOutbox, logger: Logger, signal?: AbortSignal): Promise<void> {
  if (!outbox.reclaimSpace) return;
  try {
    await outbox.reclaimSpace({ signal });
  } catch (error) {
    logger.warn('reclaiming the space of pruned webhook deliveries failed; trying again after the next run that prunes', { error });
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
  /** Most deliveries per transaction (batches adapt below it, see `PruneBatchSize`). @default PRUNE_BATCH_MAX */
  readonly maxBatchSize?: number;
  /** Receives each committed batch's count (metrics). @default nothing */
  readonly onPruned?: (count: number) => void;
  /** Times the batches and the run, in ms (see `PruneBatchSize`, `prunePacing`). @default performance.now */
  readonly now?: () => number;
  /** The pauses between batches (see `prunePacing`). @default a timer */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/**
 * Deletes finished deliveries older than the retention in the background:
 * one run per interval, each run in batches until nothing old is left, paced
 * to a small share of the event loop (see `prunePacing`), then the storage's
 * reclaim of the space when the run deleted anything (so at most once per
 * interval). Storage failures are logged and the next run tries again;
 * nothing is thrown.
 */
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

  /** Schedules the first run one interval from now. */
  start(): void {
    if (this.#stopped || this.#timer) return;
    this.#schedule();
  }

  /** Cancels the next run and waits for a run in progress to end after its current batch (cutting its reclaim short). Idempotent. */
  async stop(): Promise<void> {
    this.#stopping.abort();
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }

  get #stopped(): boolean {
    return this.#stopping.signal.aborted;
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
    const { outbox, clock, logger, retentionMs, onPruned } = this.#options;
    const now = this.#options.now ?? (() => performance.now());
    const signal = this.#stopping.signal;
    const between = prunePacing({ now, deadline: now() + this.#intervalMs, signal, sleep: this.#options.sleep });
    let pruned: number;
    try {
      pruned = await pruneInBatches(outbox, clock.now() - retentionMs, {
        batchSize: this.#batchSize,
        stopped: () => this.#stopped,
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
    if (!this.#stopped) await reclaimPrunedSpace(outbox, logger, signal);
  }
}
