import type { Database as BetterSqlite3 } from 'better-sqlite3';
import type { Scope } from '@plant-store/core';
import type { NewPortalLink, PortalLink, PortalLinkRepository, StoredPortalLink } from '@plant-store/core/adapter';
import { preparedStatements, type PreparedStatements } from './prepared-statements.js';
import { withSqliteErrors, withSqliteWrite, type GuardedWrites } from './sqlite-error.js';

const SELECT = 'SELECT id, tenant, scopes, secret_sha256, created_at, expires_at, revoked_at FROM portal_links';

/** A portal_links row (integers read as bigint: the connection uses safe integers). */
interface PortalLinkRow {
  id: string;
  tenant: string;
  /** The scopes, space-separated. */
  scopes: string;
  secret_sha256: string;
  created_at: bigint;
  expires_at: bigint;
  revoked_at: bigint | null;
}

function toPortalLink(row: PortalLinkRow): PortalLink {
  return {
    id: row.id,
    tenant: row.tenant,
    scopes: row.scopes.split(' ') as Scope[],
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
    ...(row.revoked_at !== null && { revokedAt: Number(row.revoked_at) }),
  };
}

/** Portal links in SQLite. */
export class SqlitePortalLinks implements PortalLinkRepository {
  readonly #file: GuardedWrites;
  readonly #prepared: PreparedStatements;

  constructor(db: BetterSqlite3, file: GuardedWrites) {
    this.#file = file;
    this.#prepared = preparedStatements(db);
  }

  async create({ id, tenant, scopes, secretSha256, createdAt, expiresAt }: NewPortalLink): Promise<void> {
    const insert = 'INSERT INTO portal_links (id, tenant, scopes, secret_sha256, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)';
    const values = [id, tenant, scopes.join(' '), secretSha256, Math.round(createdAt), Math.round(expiresAt)];
    withSqliteWrite(this.#file, 'create the portal link', () => this.#prepared(insert).run(...values));
  }

  async find(id: string): Promise<StoredPortalLink | undefined> {
    return withSqliteErrors('read the portal link', () => {
      const row = this.#prepared<PortalLinkRow>(`${SELECT} WHERE id = ?`).get(id);
      return row && { ...toPortalLink(row), secretSha256: row.secret_sha256 };
    });
  }

  /** Only a link not revoked yet: a second revoke keeps the first time. */
  async revoke(id: string, at: number): Promise<boolean> {
    const revoke = 'UPDATE portal_links SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL';
    return withSqliteWrite(this.#file, 'revoke the portal link', () => this.#prepared(revoke).run(Math.round(at), id).changes > 0);
  }

  /** Newest first. */
  async list(tenant?: string): Promise<PortalLink[]> {
    return withSqliteErrors('list portal links', () =>
      (tenant === undefined
        ? this.#prepared<PortalLinkRow>(`${SELECT} ORDER BY created_at DESC, id DESC`).all()
        : this.#prepared<PortalLinkRow>(`${SELECT} WHERE tenant = ? ORDER BY created_at DESC, id DESC`).all(tenant)
      ).map(toPortalLink),
    );
  }
}
