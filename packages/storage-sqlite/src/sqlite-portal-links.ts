import type { Database as BetterSqlite3, Statement } from 'better-sqlite3';
import type { Scope } from '@plant-store/core';
import type { NewPortalLink, PortalLink, PortalLinkRepository, StoredPortalLink } from '@plant-store/core/adapter';
import type { GuardedWrites } from './sqlite-error.js';
import { withSqliteErrors, withSqliteWrite } from './sqlite-error.js';

/** A portal_links row (integers read as bigint: the connection uses safe integers). */
interface PortalLinkRow {
  id: string;
  tenant: string;
  scopes: string;
  secret_sha256: string;
  created_at: bigint;
  expires_at: bigint;
  revoked_at: bigint | null;
}

function toLink(row: PortalLinkRow): PortalLink {
  return {
    id: row.id,
    tenant: row.tenant,
    scopes: row.scopes.split(' ') as Scope[],
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
    ...(row.revoked_at !== null ? { revokedAt: Number(row.revoked_at) } : {}),
  };
}

/** Portal links in SQLite; statements prepared once. */
export class SqlitePortalLinks implements PortalLinkRepository {
  readonly #file: GuardedWrites;
  readonly #insert: Statement;
  readonly #select: Statement;
  readonly #revoke: Statement;
  readonly #list: Statement;
  readonly #listAll: Statement;

  constructor(db: BetterSqlite3, file: GuardedWrites) {
    this.#file = file;
    this.#insert = db.prepare(
      'INSERT INTO portal_links (id, tenant, scopes, secret_sha256, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)',
    );
    this.#select = db.prepare('SELECT * FROM portal_links WHERE id = ?');
    this.#revoke = db.prepare('UPDATE portal_links SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL');
    this.#list = db.prepare('SELECT * FROM portal_links WHERE tenant = ? ORDER BY created_at DESC, id DESC');
    this.#listAll = db.prepare('SELECT * FROM portal_links ORDER BY created_at DESC, id DESC');
  }

  async create(link: NewPortalLink): Promise<void> {
    withSqliteWrite(this.#file, 'create the portal link', () => {
      const { id, tenant, scopes, secretSha256, createdAt, expiresAt } = link;
      this.#insert.run(id, tenant, scopes.join(' '), secretSha256, Math.round(createdAt), Math.round(expiresAt));
    });
  }

  async find(id: string): Promise<StoredPortalLink | undefined> {
    return withSqliteErrors('read the portal link', () => {
      const row = this.#select.get(id) as PortalLinkRow | undefined;
      return row && { ...toLink(row), secretSha256: row.secret_sha256 };
    });
  }

  async revoke(id: string, at: number): Promise<boolean> {
    return withSqliteWrite(this.#file, 'revoke the portal link', () => this.#revoke.run(Math.round(at), id).changes > 0);
  }

  async list(tenant?: string): Promise<PortalLink[]> {
    return withSqliteErrors('list portal links', () =>
      ((tenant === undefined ? this.#listAll.all() : this.#list.all(tenant)) as PortalLinkRow[]).map(toLink),
    );
  }
}
