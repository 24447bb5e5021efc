import { setTimeout as sleepFor } from 'node:timers/promises';

/** The share of the event loop a scheduled pruning run takes (SQLite batches back to back would make requests wait behind several). */
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

/** The pause after a batch that keeps a run to `PRUNE_LOOP_SHARE` of the loop; past the deadline (a backlog) it only yields, so pruning keeps up. */
export function prunePacing(options: PrunePacingOptions): (heldMs: number) => Promise<void> {
  const sleep = options.sleep ?? sleepUnlessAborted;
  return async (heldMs) => {
    const left = options.deadline - options.now();
    const pause = Math.min(left, (heldMs * (1 - PRUNE_LOOP_SHARE)) / PRUNE_LOOP_SHARE);
    if (pause >= 1 && !options.signal?.aborted) await sleep(pause, options.signal);
    else await yieldToEventLoop();
  };
}
