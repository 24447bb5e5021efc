import type { Scope } from '../domain/principal.js';

/** A portal link as stored: who it signs in as and until when. Never holds the secret. Times are epoch ms. */
export interface PortalLink {
  /** The link id: 16 url-safe characters, the middle part of its token. */
  readonly id: string;
  readonly tenant: string;
  /** `webhooks:read`, and `webhooks:write` unless read-only; never a plants scope. */
  readonly scopes: readonly Scope[];
  readonly createdAt: number;
  readonly expiresAt: number;
  /** When it was revoked; absent while it is not. */
  readonly revokedAt?: number;
}

export interface NewPortalLink extends Omit<PortalLink, 'revokedAt'> {
  /** Lower-case hex SHA-256 of the token's secret part (the secret itself is never stored). */
  readonly secretSha256: string;
}

export interface StoredPortalLink extends PortalLink {
  readonly secretSha256: string;
}

/**
 * Portal links: short-lived, revocable sign-ins to the tenant webhook portal that an operator mints for one tenant. Members reach any
 * tenant's links and reject with a `StorageError` only when storage itself fails.
 */
export interface PortalLinkRepository {
  /** Stores a new link; rejects with a `StorageError` when the id exists. */
  create(link: NewPortalLink): Promise<void>;
  /** The link with that id with its secret's digest (revoked and expired ones included), or `undefined`. */
  find(id: string): Promise<StoredPortalLink | undefined>;
  /** Marks the link revoked at `at`; `true` when it exists and was not revoked yet, `false` otherwise (idempotent: a second revoke keeps the first time). */
  revoke(id: string, at: number): Promise<boolean>;
  /** Every link of `tenant` (of every tenant when absent), revoked and expired ones included, newest first (creation time, then id); `[]` when none. */
  list(tenant?: string): Promise<PortalLink[]>;
}
