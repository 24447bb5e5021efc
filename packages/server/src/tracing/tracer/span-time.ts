import type { HrTime, TimeInput } from '@opentelemetry/api';

// The process's time origin (ms since the epoch, with a fraction) split once into whole seconds and nanoseconds,
// so each timestamp is one monotonic reading added to it, exact in integers.
const ORIGIN_SECONDS = Math.floor(performance.timeOrigin / 1000);
const ORIGIN_NANOS = Math.round((performance.timeOrigin - ORIGIN_SECONDS * 1000) * 1e6);

/** Now, as `HrTime` since the epoch: the time origin plus the monotonic clock, as the SDK reads it. */
export function now(): HrTime {
  return fromOrigin(performance.now());
}

/**
 * A span's `TimeInput` as `HrTime`, read as the SDK reads it: an `HrTime` as
 * it is, a `Date` as its epoch milliseconds, and a number as epoch
 * milliseconds when it is past the time origin, else as milliseconds since
 * the origin (what `performance.now()` returns).
 */
export function toHrTime(time: TimeInput | undefined): HrTime {
  if (time === undefined) return now();
  if (Array.isArray(time)) return time as HrTime;
  const millis = time instanceof Date ? time.getTime() : (time as number);
  if (millis < performance.timeOrigin) return fromOrigin(millis);
  const seconds = Math.floor(millis / 1000);
  return [seconds, Math.round((millis - seconds * 1000) * 1e6)];
}

/** Whether `end` comes before `start`. */
export function isBefore(end: HrTime, start: HrTime): boolean {
  return end[0] < start[0] || (end[0] === start[0] && end[1] < start[1]);
}

function fromOrigin(millis: number): HrTime {
  const nanos = ORIGIN_NANOS + Math.round(millis * 1e6);
  const seconds = Math.floor(nanos / 1e9);
  return [ORIGIN_SECONDS + seconds, nanos - seconds * 1e9];
}
