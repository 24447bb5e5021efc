import { context, type Context } from '@opentelemetry/api';
import type { LogFields, Logger } from '@plant-store/core/adapter';

/**
 * The logger, writing each entry inside `traceContext`: a logger that names
 * the active span (the reference service's adds `traceId` and `spanId`)
 * names the request's, also for lines written after an `await`, where a
 * context manager that does not follow promises has lost it.
 */
export function loggerInTrace(logger: Logger, traceContext: Context): Logger {
  const inTrace = (write: (message: string, fields?: LogFields) => void, message: string, fields: LogFields | undefined) =>
    context.with(traceContext, write, logger, message, fields);
  return {
    debug: (message, fields) => inTrace(logger.debug, message, fields),
    info: (message, fields) => inTrace(logger.info, message, fields),
    warn: (message, fields) => inTrace(logger.warn, message, fields),
    error: (message, fields) => inTrace(logger.error, message, fields),
  };
}
