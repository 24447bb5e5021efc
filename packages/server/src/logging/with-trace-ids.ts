import { isSpanContextValid, trace } from '@opentelemetry/api';
import type { LogFields, Logger } from '@plant-store/core';

/**
 * The logger, with `traceId` and `spanId` of the active span added to each
 * entry written inside one (every request line, since the request runs in
 * its span), so a log line leads to its trace and back. Meant for a service
 * whose tracing is on: without it no span is ever active.
 */
export function withTraceIds(logger: Logger): Logger {
  const withIds = (fields: LogFields | undefined): LogFields | undefined => {
    const spanContext = trace.getActiveSpan()?.spanContext();
    if (spanContext === undefined || !isSpanContextValid(spanContext)) return fields;
    return { ...fields, traceId: spanContext.traceId, spanId: spanContext.spanId };
  };
  return {
    debug: (message, fields) => logger.debug(message, withIds(fields)),
    info: (message, fields) => logger.info(message, withIds(fields)),
    warn: (message, fields) => logger.warn(message, withIds(fields)),
    error: (message, fields) => logger.error(message, withIds(fields)),
  };
}
