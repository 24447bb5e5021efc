import { INVALID_TRACEID, trace } from '@opentelemetry/api';
import type { LogFields, Logger } from '@plant-store/core/adapter';

/**
 * The logger, with `traceId` and `spanId` of the active span added to each
 * entry written inside one (every request line: the listener writes a
 * request's lines in its span), so a log line leads to its trace and back.
 * Meant for a service whose tracing is on: without it no span is ever active.
 */
export function withTraceIds(logger: Logger): Logger {
  const withIds = (fields: LogFields | undefined): LogFields | undefined => {
    const spanContext = trace.getActiveSpan()?.spanContext();
    // The SDK's spans have valid ids; only a no-op span has the all-zero trace id (per line, a comparison beats validating both ids).
    if (spanContext === undefined || spanContext.traceId === INVALID_TRACEID) return fields;
    return { ...fields, traceId: spanContext.traceId, spanId: spanContext.spanId };
  };
  return {
    debug: (message, fields) => logger.debug(message, withIds(fields)),
    info: (message, fields) => logger.info(message, withIds(fields)),
    warn: (message, fields) => logger.warn(message, withIds(fields)),
    error: (message, fields) => logger.error(message, withIds(fields)),
  };
}
