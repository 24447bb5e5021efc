import type { Scope } from '@plant-store/core';

// RFC 6750 §3: the challenge carries an error code only when the client presented a token.
export const MISSING_CREDENTIALS_CHALLENGE = 'Bearer realm="plant-store"';
export const INVALID_TOKEN_CHALLENGE = 'Bearer realm="plant-store", error="invalid_token"';

export function insufficientScopeChallenge(scope: Scope): string {
  return `Bearer realm="plant-store", error="insufficient_scope", scope="${scope}"`;
}
