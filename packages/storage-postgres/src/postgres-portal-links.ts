import type { Scope } from '@plant-store/core';
import type { NewPortalLink, PortalLink, PortalLinkRepository, StoredPortalLink } from '@plant-store/core/adapter';
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
    ...(row.revoked_at !== null && { revokedAt: Number(row.revoked_at) }),
  };
}

/** Portal links in PostgreSQL. */
export class PostgresPortalLinks implements PortalLinkRepository {
  readonly #runner: QueryRunner;
  readonly #table: string;

  constructor(runner: QueryRunner, tables: Tables) {
    this.#runner = runner;
    this.#table = tables.portalLinks;
  }

  async create({ id, tenant, scopes, secretSha256, createdAt, expiresAt }: NewPortalLink): Promise<void> {
    const sql = `INSERT INTO ${this.#table} (id, tenant, scopes, secret_sha256, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)`;
    await this.#runner.rows('create the portal link', sql, [id, tenant, scopes, secretSha256, Math.round(createdAt), Math.round(expiresAt)]);
  }

  async find(id: string): Promise<StoredPortalLink | undefined> {
    const [row] = await this.#runner.rows<PortalLinkRow>('read the portal link', `${this.#select} WHERE id = $1`, [id]);
    return row && { ...toLink(row), secretSha256: row.secret_sha256 };
  }

  /** Only a link not revoked yet: a second revoke keeps the first time. */
  async revoke(id: string, at: number): Promise<boolean> {
    const sql = `UPDATE ${this.#table} SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL`;
    return (await this.#runner.changes('revoke the portal link', sql, [id, Math.round(at)])) > 0;
  }

  /** Newest first. */
  async list(tenant?: string): Promise<PortalLink[]> {
    const sql = `${this.#select} WHERE ($1::text IS NULL OR tenant = $1) ORDER BY created_at DESC, id DESC`;
    return (await this.#runner.rows<PortalLinkRow>('list portal links', sql, [tenant ?? null])).map(toLink);
  }

  get #select(): string {
    return `SELECT id, tenant, scopes, secret_sha256, created_at, expires_at, revoked_at FROM ${this.#table}`;
  }
}
