import type { HrTime, TimeInput } from '@opentelemetry/api';
import { performance } from 'node:perf_hooks';
import type { ProtobufWriter } from '../protobuf-writer.js';

// `performance` imported, not the global: the global is a getter on globalThis, which every span's two clock
// readings would go through.

// The process's time origin (ms since the epoch, with a fraction) split once into whole seconds and nanoseconds:
// a span keeps its times as milliseconds since the origin (one monotonic clock reading, no array), and they are
// made epoch nanoseconds, exact in integers, only when it is encoded.
const ORIGIN_SECONDS = Math.floor(performance.timeOrigin / 1000);
const ORIGIN_NANOS = Math.round((performance.timeOrigin - ORIGIN_SECONDS * 1000) * 1e6);

/**
 * A span's `TimeInput` as milliseconds since the time origin, read as the
 * SDK reads it: none is now (the monotonic clock), an `HrTime` is since the
 * epoch, a `Date` is its epoch milliseconds, and a number is epoch
 * milliseconds when it is past the time origin, else milliseconds since the
 * origin (what `performance.now()` returns).
 */
export function sinceOrigin(time?: TimeInput): number {
  if (time === undefined) return performance.now();
  if (Array.isArray(time)) return (time[0] - ORIGIN_SECONDS) * 1000 + (time[1] - ORIGIN_NANOS) / 1e6;
  const millis = time instanceof Date ? time.getTime() : (time as number);
  return millis < performance.timeOrigin ? millis : millis - performance.timeOrigin;
}

// The origin in epoch nanoseconds, as the high and low 32 bits of the 64-bit integer (exact, through BigInt, once).
const ORIGIN_EPOCH_NANOS = BigInt(ORIGIN_SECONDS) * 1_000_000_000n + BigInt(ORIGIN_NANOS);
const ORIGIN_HIGH = Number(ORIGIN_EPOCH_NANOS >> 32n);
const ORIGIN_LOW = Number(ORIGIN_EPOCH_NANOS & 0xffffffffn);
const TWO_TO_32 = 0x100000000;

/**
 * Writes milliseconds since the origin as epoch nanoseconds (OTLP's
 * `fixed64` times). A time before the origin (a start time a caller gave)
 * goes the general way, through `HrTime`.
 */
export function writeEpochNanos(writer: ProtobufWriter, millisSinceOrigin: number): void {
  if (millisSinceOrigin < 0) {
    writer.hrTime(toHrTime(millisSinceOrigin));
    return;
  }
  // Room first: it may grow the buffer.
  const at = writer.skip(8);
  putEpochNanos(writer.view, at, millisSinceOrigin);
}

/**
 * Puts milliseconds since the origin (not before it) as epoch nanoseconds,
 * little-endian, at `at` of `view`, with no array made: the origin's
 * exact high and low parts plus a count of nanoseconds that stays exact in
 * a double for over a hundred days of uptime.
 */
export function putEpochNanos(view: DataView, at: number, millisSinceOrigin: number): void {
  const nanos = Math.round(millisSinceOrigin * 1e6);
  const high = Math.floor(nanos / TWO_TO_32);
  const low = ORIGIN_LOW + (nanos - high * TWO_TO_32);
  const carry = low >= TWO_TO_32 ? 1 : 0;
  view.setUint32(at, low - carry * TWO_TO_32, true);
  view.setUint32(at + 4, ORIGIN_HIGH + high + carry, true);
}

/** Milliseconds since the origin as `HrTime` since the epoch (seconds, nanoseconds). */
export function toHrTime(millisSinceOrigin: number): HrTime {
  const nanos = ORIGIN_NANOS + Math.round(millisSinceOrigin * 1e6);
  const seconds = Math.floor(nanos / 1e9);
  return [ORIGIN_SECONDS + seconds, nanos - seconds * 1e9];
}
