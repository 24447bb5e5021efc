import { INVALID_TRACEID, trace } from '@opentelemetry/api';
import type { TraceIds } from './json-logger.js';

/**
 * `traceId` and `spanId` of the active span, for a log entry written inside
 * one (every request line: the listener writes a request's lines in its
 * span), so a log line leads to its trace and back; `undefined` outside a
 * span. Meant for a service whose tracing is on: without it no span is ever
 * active.
 */
export function activeTraceIds(): TraceIds | undefined {
  const spanContext = trace.getActiveSpan()?.spanContext();
  // The SDK's spans have valid ids; only a no-op span has the all-zero trace id (per line, a comparison beats validating both ids).
  if (spanContext === undefined || spanContext.traceId === INVALID_TRACEID) return undefined;
  return { traceId: spanContext.traceId, spanId: spanContext.spanId };
}
