/**
 * The JWKS source could not be read (network error, timeout, an answer other
 * than 200, or a body that is not a key set). This is the only way
 * `jwtAuthenticator` rejects: the token could not be judged, which is not the
 * same as judging it invalid. The message names the URL, never a token.
 */
export class JwksUnavailableError extends Error {
  readonly url: string;
  constructor(url: string, reason: string, options?: { cause?: unknown }) {
    super(`JWKS at ${url} unavailable: ${reason}`, options);
    this.name = 'JwksUnavailableError';
    this.url = url;
  }
}
