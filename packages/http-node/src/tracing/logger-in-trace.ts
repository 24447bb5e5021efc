import { context, type Context } from '@opentelemetry/api';
import type { LogFields, Logger } from '@plant-store/core/adapter';

/**
 * The logger for a request traced in `traceContext`: the logger's own
 * (`inTrace`) when it has one, which names the request's span on each
 * line; else the logger writing each entry inside `traceContext`, so a
 * logger that names the active span names the request's, also for lines
 * written after an `await`, where a context manager that does not follow
 * promises has lost it.
 */
export function loggerInTrace(logger: Logger, traceContext: Context): Logger {
  return logger.inTrace?.(traceContext) ?? new LoggerInTrace(logger, traceContext);
}

// A class, not an object of closures: one small object per traced request instead of five.
class LoggerInTrace implements Logger {
  readonly #logger: Logger;
  readonly #traceContext: Context;

  constructor(logger: Logger, traceContext: Context) {
    this.#logger = logger;
    this.#traceContext = traceContext;
  }

  debug(message: string, fields?: LogFields): void {
    context.with(this.#traceContext, this.#logger.debug, this.#logger, message, fields);
  }

  info(message: string, fields?: LogFields): void {
    context.with(this.#traceContext, this.#logger.info, this.#logger, message, fields);
  }

  warn(message: string, fields?: LogFields): void {
    context.with(this.#traceContext, this.#logger.warn, this.#logger, message, fields);
  }

  error(message: string, fields?: LogFields): void {
    context.with(this.#traceContext, this.#logger.error, this.#logger, message, fields);
  }
}
