import { context, INVALID_TRACEID, trace, type Context, type SpanContext } from '@opentelemetry/api';
import type { VouchedSpanContext } from '../tracing/vouched-span-context.js';
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
 * its log lines); `undefined` for none. Marked `hex` when the span's
 * context vouches that its ids are hex digits (see `VouchedSpanContext`).
 */
export function traceIdsIn(traceContext: Context): TraceIds | undefined {
  const spanContext: (SpanContext & Partial<Pick<VouchedSpanContext, 'idsAreHex'>>) | undefined = trace.getSpan(traceContext)?.spanContext();
  // The SDK's spans have valid ids; only a no-op span has the all-zero trace id (a comparison beats validating both
  // ids). A vouched context is never that one (its ids are a span's of the service's tracer), so it is not compared:
  // its trace id is not internalized, and `===` with the constant would be a call into V8's runtime on every request.
  if (spanContext === undefined || (spanContext.idsAreHex !== true && spanContext.traceId === INVALID_TRACEID)) return undefined;
  return { traceId: spanContext.traceId, spanId: spanContext.spanId, hex: spanContext.idsAreHex === true };
}
