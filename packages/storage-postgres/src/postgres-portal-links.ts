import type { Scope } from '@plant-store/core';
import type { NewPortalLink, PortalLink, PortalLinkRepository, StoredPortalLink } from '@plant-store/core/adapter';
import { insertPortalLinkSql, listPortalLinksSql, revokePortalLinkSql, selectPortalLinkSql } from './portal-link-queries.js';
import type { QueryRunner } from './query-runner.js';
import type { Tables } from './tables.js';

/** A portal_links row (int8 as bigint, text[] as an array). */
interface PortalLinkRow {
  readonly id: string;
  readonly tenant: string;
  readonly scopes: Scope[];
  readonly secret_sha256: string;
  readonly created_at: bigint;
  readonly expires_at: bigint;
  readonly revoked_at: bigint | null;
}

function toLink(row: PortalLinkRow): PortalLink {
  return {
    id: row.id,
    tenant: row.tenant,
    scopes: [...row.scopes],
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
    ...(row.revoked_at !== null ? { revokedAt: Number(row.revoked_at) } : {}),
  };
}

/** Portal links in PostgreSQL. */
export class PostgresPortalLinks implements PortalLinkRepository {
  readonly #runner: QueryRunner;
  readonly #sql: { insert: string; select: string; revoke: string; list: string };

  constructor(runner: QueryRunner, tables: Tables) {
    this.#runner = runner;
    this.#sql = {
      insert: insertPortalLinkSql(tables),
      select: selectPortalLinkSql(tables),
      revoke: revokePortalLinkSql(tables),
      list: listPortalLinksSql(tables),
    };
  }

  async create(link: NewPortalLink): Promise<void> {
    const { id, tenant, scopes, secretSha256, createdAt, expiresAt } = link;
    await this.#runner.rows('create the portal link', this.#sql.insert, [id, tenant, scopes, secretSha256, Math.round(createdAt), Math.round(expiresAt)]);
  }

  async find(id: string): Promise<StoredPortalLink | undefined> {
    const [row] = await this.#runner.rows<PortalLinkRow>('read the portal link', this.#sql.select, [id]);
    return row && { ...toLink(row), secretSha256: row.secret_sha256 };
  }

  async revoke(id: string, at: number): Promise<boolean> {
    return (await this.#runner.changes('revoke the portal link', this.#sql.revoke, [id, Math.round(at)])) > 0;
  }

  async list(tenant?: string): Promise<PortalLink[]> {
    return (await this.#runner.rows<PortalLinkRow>('list portal links', this.#sql.list, [tenant ?? null])).map(toLink);
  }
}
