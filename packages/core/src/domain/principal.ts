/**
 * What a principal may do: read plants (list, get), write plants (create,
 * delete), and read or manage its tenant's webhook endpoints and deliveries.
 */
export type Scope = 'plants:read' | 'plants:write' | 'webhooks:read' | 'webhooks:write';

export const ALL_SCOPES: readonly Scope[] = ['plants:read', 'plants:write', 'webhooks:read', 'webhooks:write'];

/** An authenticated caller. Every operation sees only its tenant's plants. */
export interface Principal {
  readonly subject: string;
  readonly tenant: string;
  readonly scopes: readonly Scope[];
  /** When the credentials stop working (epoch ms), when the authenticator knows it (portal links). */
  readonly expiresAt?: number;
}
