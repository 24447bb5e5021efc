import { ALL_SCOPES, type Principal, type Scope } from '@plant-store/core';
import type { JWTPayload } from 'jose';

/**
 * The principal a verified payload names: subject from `sub`, tenant from
 * `tenantClaim`, scopes from `scope` (space-separated, RFC 8693/9068) and
 * `scp` (an array, or a space-separated string as some issuers send it),
 * both read. Scopes this service does not know are dropped: an issuer may
 * grant scopes for other services in the same token. `undefined` when the
 * subject or tenant is missing or not a non-empty string.
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
