import { isSpanContextValid, type SpanContext } from '@opentelemetry/api';

// The W3C trace context header, version 00: `00-<trace id>-<span id>-<flags>`.
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The W3C `traceparent` of a span context (`undefined` for an invalid one, as without an SDK), written by core so the outbox keeps one format whatever a host propagates. */
export function formatTraceparent(spanContext: SpanContext): string | undefined {
  if (!isSpanContextValid(spanContext)) return undefined;
  return `00-${spanContext.traceId}-${spanContext.spanId}-${(spanContext.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

/** The span context a stored `traceparent` names, or `undefined` when it is absent or not one. */
export function parseTraceparent(traceparent: string | undefined): SpanContext | undefined {
  const match = traceparent === undefined ? null : TRACEPARENT.exec(traceparent);
  if (!match) return undefined;
  const spanContext: SpanContext = { traceId: match[1]!, spanId: match[2]!, traceFlags: Number.parseInt(match[3]!, 16), isRemote: true };
  return isSpanContextValid(spanContext) ? spanContext : undefined;
}
