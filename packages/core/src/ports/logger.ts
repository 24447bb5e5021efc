import type { Context } from '@opentelemetry/api';

/** Structured fields of a log entry. Never put tokens or secrets here. */
export type LogFields = Readonly<Record<string, unknown>>;

/** Where core reports what it does. */
export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  /**
   * Optional, for a logger that writes trace ids: this logger's entries
   * for one trace context (a request's), whose span it names on each line.
   * The HTTP adapter hands a traced request's context over once; a logger
   * without this gets each of the request's lines written inside the
   * context instead, and reads it from the active one.
   */
  inTrace?(traceContext: Context): Logger;
}

/** A logger that drops everything (the default for embedded stores), in a trace as outside one. */
export const silentLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  inTrace: () => silentLogger,
};
