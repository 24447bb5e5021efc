import type { Scope } from '@plant-store/core';
import type { PortalLink, StoredPortalLink } from '@plant-store/core/adapter';

/** A portal_links row (integers read as bigint: the connection uses safe integers). */
export interface PortalLinkRow {
  id: string;
  tenant: string;
  /** The scopes, space-separated. */
  scopes: string;
  secret_sha256: string;
  created_at: bigint;
  expires_at: bigint;
  revoked_at: bigint | null;
}

export function toPortalLink(row: PortalLinkRow): PortalLink {
  return {
    id: row.id,
    tenant: row.tenant,
    scopes: row.scopes.split(' ') as Scope[],
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
    ...(row.revoked_at !== null ? { revokedAt: Number(row.revoked_at) } : {}),
  };
}

export function toStoredPortalLink(row: PortalLinkRow): StoredPortalLink {
  return { ...toPortalLink(row), secretSha256: row.secret_sha256 };
}
