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

/** `traceId` and `spanId` of the span `traceContext` names (a request's, for its log lines); `undefined` for none. */
export function traceIdsIn(traceContext: Context): TraceIds | undefined {
  const spanContext = trace.getSpan(traceContext)?.spanContext();
  // The SDK's spans have valid ids; only a no-op span has the all-zero trace id (per line, a comparison beats validating both ids).
  if (spanContext === undefined || spanContext.traceId === INVALID_TRACEID) return undefined;
  return { traceId: spanContext.traceId, spanId: spanContext.spanId };
}
