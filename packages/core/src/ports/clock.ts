/** Source of the current time, replaceable in tests. */
export interface Clock {
  /** Current time in epoch milliseconds. */
  now(): number;
}

/** The system clock. */
export const systemClock: Clock = { now: () => Date.now() };
