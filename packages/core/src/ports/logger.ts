/** Structured fields of a log entry. Never put tokens or secrets here. */
export type LogFields = Readonly<Record<string, unknown>>;

/** Where core reports what it does. */
export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

/** A logger that drops everything (the default for embedded stores). */
export const silentLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
};
