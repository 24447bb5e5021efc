import { setTimeout as sleepFor } from 'node:timers/promises';

/**
 * The share of the event loop a background pruning run takes while it runs
 * on schedule. After each batch the pruner waits (1 − share) / share times as
 * long as the batch held the loop: on SQLite, pruning deletes old rows spread
 * all over the file, so each commit writes many pages; run back to back, the
 * batches would take most of the loop for a moment, and requests arriving
 * then would wait behind several of them. Spread out, pruning costs requests
 * little more than the steady load's own writes do. On PostgreSQL a batch holds the loop for next to
 * nothing, and so waits next to nothing.
 */
export const PRUNE_LOOP_SHARE = 0.02;

export interface PrunePacingOptions {
  /** The monotonic clock of the run, in ms. */
  readonly now: () => number;
  /** When the run should be done (on the `now` clock): from then on it goes at full speed, only yielding between batches. */
  readonly deadline: number;
  /** Ends a pause at once (the pruner is stopping). @default never */
  readonly signal?: AbortSignal;
  /** Waits `ms`, or less when `signal` is aborted; never throws. @default a timer that does not keep the process alive */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** Hands the event loop back: what arrived during a batch (requests, deliveries) runs before the next one. */
export const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

const sleepUnlessAborted = (ms: number, signal?: AbortSignal) =>
  sleepFor(ms, undefined, { signal, ref: false }).then(
    () => {},
    () => {},
  );

/**
 * What a background run does between batches, given how long the last one
 * held the event loop: a pause that keeps the run to `PRUNE_LOOP_SHARE` of
 * the loop, never past the deadline. A run still going at its deadline (a
 * backlog) is behind: it only yields from then on, so pruning keeps up with
 * any rate of deliveries the storage can take.
 */
export function prunePacing(options: PrunePacingOptions): (heldMs: number) => Promise<void> {
  const sleep = options.sleep ?? sleepUnlessAborted;
  return async (heldMs) => {
    const left = options.deadline - options.now();
    const pause = Math.min(left, (heldMs * (1 - PRUNE_LOOP_SHARE)) / PRUNE_LOOP_SHARE);
    if (pause >= 1 && !options.signal?.aborted) await sleep(pause, options.signal);
    else await yieldToEventLoop();
  };
}
