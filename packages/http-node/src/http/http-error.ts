/**
 * A failure that belongs to the HTTP layer itself (wrong media type, body too
 * large, unreadable body, unknown path, wrong method), as opposed to the
 * core's domain errors. The message is safe to show to callers.
 *
 * Each is an answer to a client, never a bug to trace, so none captures a
 * stack trace (that cost more than the rest of a 404).
 */
export class HttpError extends Error {
  readonly status: number;
  /** Extra response headers as a flat `[name, value, …]` list (e.g. `allow`). */
  readonly headers: readonly string[];

  constructor(status: number, message: string, headers: readonly string[] = []) {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
    this.name = 'HttpError';
    this.status = status;
    this.headers = headers;
  }
}
