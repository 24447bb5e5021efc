import type { Scope } from '@plant-store/core';

// RFC 6750 §3: the challenge carries an error code only when the client
// presented a token; a missing or malformed header gets the bare challenge.

/** Challenge for a request without (usable) credentials. */
export const MISSING_CREDENTIALS_CHALLENGE = 'Bearer realm="plant-store"';

/** Challenge for a token nobody knows. */
export const INVALID_TOKEN_CHALLENGE = 'Bearer realm="plant-store", error="invalid_token"';

/** Challenge for a valid token that lacks `scope`. */
export function insufficientScopeChallenge(scope: Scope): string {
  return `Bearer realm="plant-store", error="insufficient_scope", scope="${scope}"`;
}
