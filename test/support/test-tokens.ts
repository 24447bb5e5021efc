import { staticTokens } from '@plant-store/core';
import type { Authenticator } from '@plant-store/core/adapter';

/** Bearer tokens every test server and service knows. */
export const TOKENS = {
  /** Tenant `a`, both scopes. */
  owner: 'owner-token-a',
  /** Tenant `b`, both scopes. */
  otherTenant: 'owner-token-b',
  /** Tenant `a`, `plants:read` only. */
  reader: 'reader-token-a',
  /** Tenant `a`, `plants:write` only. */
  writer: 'writer-token-a',
  /** Tenant `a`, `webhooks:read` only. */
  webhookReader: 'webhook-reader-token-a',
} as const;

/** The authenticator that knows `TOKENS`. */
export function testTokens(): Authenticator {
  return staticTokens([
    { token: TOKENS.owner, tenant: 'a' },
    { token: TOKENS.otherTenant, tenant: 'b' },
    { token: TOKENS.reader, tenant: 'a', scopes: ['plants:read'] },
    { token: TOKENS.writer, tenant: 'a', scopes: ['plants:write'] },
    { token: TOKENS.webhookReader, tenant: 'a', scopes: ['webhooks:read'] },
  ]);
}
