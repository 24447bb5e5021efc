/**
 * A failure of the HTTP layer itself, with a message safe to show to callers. It is an answer to a client, never a bug
 * to trace, so it captures no stack trace (that cost more than the rest of a 404).
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** Extra response headers as a flat `[name, value, …]` list (e.g. `allow`). */
    readonly headers: readonly string[] = [],
  ) {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
    this.name = 'HttpError';
  }
}
