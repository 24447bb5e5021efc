import type { Clock } from '../ports/clock.js';

/** A clock that moves only when told to, so a test can skip the waits of retries, leases and retention. */
export interface ManualClock extends Clock {
  /** Moves time forward by `ms` (0 or more) and tells every `onAdvance` listener. */
  advance(ms: number): void;
  /** Calls `listener` after each `advance`; returns a function that stops it. */
  onAdvance(listener: () => void): () => void;
}

/** 2026-01-01T00:00:00Z: a fixed start, so signatures and dates in a test are the same on every run. */
export const MANUAL_CLOCK_START = Date.UTC(2026, 0, 1);

export function manualClock(start: number = MANUAL_CLOCK_START): ManualClock {
  let now = start;
  const listeners = new Set<() => void>();
  return {
    now: () => now,
    advance(ms) {
      if (!(Number.isFinite(ms) && ms >= 0)) throw new RangeError(`advance takes a duration in ms of 0 or more, got ${ms}`);
      now += ms;
      for (const listener of [...listeners]) listener();
    },
    onAdvance(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
