import { ALL_SCOPES, type Principal, type Scope } from '@plant-store/core';
import type { JWTPayload } from 'jose';

/**
 * The principal a verified payload names, scopes from `scope` and `scp` (array or space-separated). Unknown scopes are
 * dropped: an issuer may grant scopes for other services in the same token.
 */
export function jwtPrincipal(payload: JWTPayload, tenantClaim: string): Principal | undefined {
  const tenant = payload[tenantClaim];
  const subject = payload.sub;
  if (typeof tenant !== 'string' || tenant === '' || typeof subject !== 'string' || subject === '') return undefined;
  const granted = new Set([...scopeList(payload['scope']), ...scopeList(payload['scp'])]);
  const scopes = ALL_SCOPES.filter((scope: Scope) => granted.has(scope));
  return Object.freeze({ subject, tenant, scopes: Object.freeze(scopes) });
}

function scopeList(claim: unknown): readonly string[] {
  if (typeof claim === 'string') return claim.split(' ');
  if (Array.isArray(claim)) return claim.filter((scope): scope is string => typeof scope === 'string');
  return [];
}
