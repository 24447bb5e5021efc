import { INVALID_TRACEID, trace } from '@opentelemetry/api';
import type { LogFields } from '@plant-store/core/adapter';

/**
 * `traceId` and `spanId` of the active span, for a log entry written inside
 * one (every request line: the listener writes a request's lines in its
 * span), so a log line leads to its trace and back; `undefined` outside a
 * span. Meant for a service whose tracing is on: without it no span is ever
 * active. The JSON logger adds them to the entry's own fields (its
 * `contextFields`) without copying those.
 */
export function activeTraceIds(): LogFields | undefined {
  const spanContext = trace.getActiveSpan()?.spanContext();
  // The SDK's spans have valid ids; only a no-op span has the all-zero trace id (per line, a comparison beats validating both ids).
  if (spanContext === undefined || spanContext.traceId === INVALID_TRACEID) return undefined;
  return { traceId: spanContext.traceId, spanId: spanContext.spanId };
}
