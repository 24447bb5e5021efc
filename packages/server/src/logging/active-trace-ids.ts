import { context, INVALID_TRACEID, trace, type Context } from '@opentelemetry/api';
import type { TraceIds } from './json-logger.js';

/**
 * `traceId` and `spanId` of the active span, for a log entry written inside
 * one; `undefined` outside a span. Meant for a service whose tracing is on:
 * without it no span is ever active.
 */
export function activeTraceIds(): TraceIds | undefined {
  return traceIdsIn(context.active());
}

/**
 * `traceId` and `spanId` of the span `traceContext` names (a request's, for
 * its log lines); `undefined` for none. Marked `hex` when the span vouches
 * that its ids are hex digits (the service's own tracer's spans do).
 */
export function traceIdsIn(traceContext: Context): TraceIds | undefined {
  const span = trace.getSpan(traceContext);
  const spanContext = span?.spanContext();
  // The SDK's spans have valid ids; only a no-op span has the all-zero trace id (per line, a comparison beats validating both ids).
  if (spanContext === undefined || spanContext.traceId === INVALID_TRACEID) return undefined;
  const hex = (span as Partial<HexIdsSpan>).idsAreHex === true;
  return { traceId: spanContext.traceId, spanId: spanContext.spanId, hex };
}

/** A span whose ids are known to be hex digits (the service's tracer's, recorded or not). */
interface HexIdsSpan {
  readonly idsAreHex: true;
}
