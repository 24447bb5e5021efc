/**
 * A failure that belongs to the HTTP layer itself (wrong media type, body too
 * large, unreadable body, unknown path, wrong method), as opposed to the
 * core's domain errors. The message is safe to show to callers.
 */
export class HttpError extends Error {
  readonly status: number;
  /** Extra response headers as a flat `[name, value, …]` list (e.g. `allow`). */
  readonly headers: readonly string[];

  constructor(status: number, message: string, headers: readonly string[] = []) {
    super(message);
    this.name = 'HttpError';
    this.status = status;
    this.headers = headers;
  }
}
