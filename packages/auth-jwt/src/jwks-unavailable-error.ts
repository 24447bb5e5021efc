/**
 * The JWKS source could not be read (network error, timeout, an answer other
 * than 200, or a body that is not a key set). This is the only way
 * `jwtAuthenticator` rejects: the token could not be judged, which is not the
 * same as judging it invalid. The message names the URL, never a token.
 * `retryAfterMs` says how long until the key set will be fetched again (the
 * failure is remembered until then), so callers can be told when to come back.
 */
export class JwksUnavailableError extends Error {
  readonly url: string;
  /** Why, without the URL (e.g. `answered HTTP 500`). */
  readonly reason: string;
  /** Milliseconds until the next fetch of the key set is allowed; absent when not known. */
  readonly retryAfterMs?: number;
  constructor(url: string, reason: string, options?: { cause?: unknown; retryAfterMs?: number }) {
    super(`JWKS at ${url} unavailable: ${reason}`, options);
    this.name = 'JwksUnavailableError';
    this.url = url;
    this.reason = reason;
    if (options?.retryAfterMs !== undefined) this.retryAfterMs = options.retryAfterMs;
  }
}
