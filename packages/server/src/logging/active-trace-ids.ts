import { isSpanContextValid, trace } from '@opentelemetry/api';
import type { TraceIds } from './json-logger.js';

/** `traceId` and `spanId` of the active span, for a log entry written inside one; `undefined` outside a span. */
export function activeTraceIds(): TraceIds | undefined {
  const spanContext = trace.getActiveSpan()?.spanContext();
  if (spanContext === undefined || !isSpanContextValid(spanContext)) return undefined;
  return { traceId: spanContext.traceId, spanId: spanContext.spanId };
}
