import { INVALID_SPANID, INVALID_TRACEID, isSpanContextValid, type SpanContext } from '@opentelemetry/api';

// The W3C trace context header, version 00: `00-<trace id>-<span id>-<flags>`.
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/**
 * The W3C `traceparent` of a span context, or `undefined` for the invalid
 * one every span has when no OpenTelemetry SDK is installed (all-zero ids)
 * and for ids of the wrong length. Written by core itself rather than by
 * the registered propagator: the outbox keeps this one format whatever a
 * host propagates on the wire.
 *
 * The ids' digits are not checked here but where a traceparent is read
 * (`parseTraceparent`, which drops one that is not hex): an SDK's ids are
 * hex, and checking all 48 digits cost more than the rest of stamping on
 * every traced write.
 */
export function formatTraceparent(spanContext: SpanContext): string | undefined {
  const { traceId, spanId } = spanContext;
  if (traceId.length !== 32 || spanId.length !== 16 || isAllZero(traceId, INVALID_TRACEID) || isAllZero(spanId, INVALID_SPANID)) return undefined;
  const flags = flagsHex(spanContext.traceFlags & 0xff);
  return `00-${traceId}-${spanId}-${flags}`;
}

/**
 * Whether `id` is `zero`, the invalid all-zero id of its length. The first
 * digit settles it for fifteen ids in sixteen: an id cut from a longer
 * string is not internalized, so `===` with a constant of the same length
 * is a call into V8's runtime, which compares them character by character.
 */
function isAllZero(id: string, zero: string): boolean {
  return id.charCodeAt(0) === 0x30 && id === zero;
}

/** Two hex digits of trace flags; the two every span has (sampled or not) without formatting a number each time. */
function flagsHex(flags: number): string {
  if (flags === 1) return '01';
  return flags === 0 ? '00' : flags.toString(16).padStart(2, '0');
}

/** The span context a stored `traceparent` names, or `undefined` when it is absent or not one. */
export function parseTraceparent(traceparent: string | undefined): SpanContext | undefined {
  const match = traceparent === undefined ? null : TRACEPARENT.exec(traceparent);
  if (!match) return undefined;
  const spanContext: SpanContext = { traceId: match[1]!, spanId: match[2]!, traceFlags: Number.parseInt(match[3]!, 16), isRemote: true };
  return isSpanContextValid(spanContext) ? spanContext : undefined;
}
