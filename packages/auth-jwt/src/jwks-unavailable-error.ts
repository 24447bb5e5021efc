/**
 * The JWKS source could not be read: the only way `jwtAuthenticator` rejects, as the token could not be judged (not the
 * same as invalid). The message names the URL, never a token.
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
