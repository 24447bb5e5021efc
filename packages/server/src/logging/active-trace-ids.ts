import { isSpanContextValid, trace } from '@opentelemetry/api';
import type { TraceIds } from './json-logger.js';

export function activeTraceIds(): TraceIds | undefined {
  const spanContext = trace.getActiveSpan()?.spanContext();
  if (spanContext === undefined || !isSpanContextValid(spanContext)) return undefined;
  return { traceId: spanContext.traceId, spanId: spanContext.spanId };
}
