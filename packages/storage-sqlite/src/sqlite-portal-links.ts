import type { Database as BetterSqlite3, Statement } from 'better-sqlite3';
import type { NewPortalLink, PortalLink, PortalLinkRepository, StoredPortalLink } from '@plant-store/core/adapter';
import { INSERT_PORTAL_LINK, LIST_PORTAL_LINKS, LIST_TENANT_PORTAL_LINKS, REVOKE_PORTAL_LINK, SELECT_PORTAL_LINK } from './portal-link-queries.js';
import { toPortalLink, toStoredPortalLink, type PortalLinkRow } from './portal-link-rows.js';
import { withSqliteErrors, withSqliteWrite, type GuardedWrites } from './sqlite-error.js';

/** The portal link statements, prepared once per storage. */
interface PortalLinkStatements {
  readonly insert: Statement<[id: string, tenant: string, scopes: string, secretSha256: string, createdAt: number, expiresAt: number]>;
  readonly select: Statement<[id: string], PortalLinkRow>;
  readonly revoke: Statement<[at: number, id: string]>;
  readonly listOfTenant: Statement<[tenant: string], PortalLinkRow>;
  readonly listAll: Statement<[], PortalLinkRow>;
}

function prepareStatements(db: BetterSqlite3): PortalLinkStatements {
  return {
    insert: db.prepare(INSERT_PORTAL_LINK),
    select: db.prepare<[string], PortalLinkRow>(SELECT_PORTAL_LINK),
    revoke: db.prepare(REVOKE_PORTAL_LINK),
    listOfTenant: db.prepare<[string], PortalLinkRow>(LIST_TENANT_PORTAL_LINKS),
    listAll: db.prepare<[], PortalLinkRow>(LIST_PORTAL_LINKS),
  };
}

/** Portal links in SQLite. */
export class SqlitePortalLinks implements PortalLinkRepository {
  readonly #file: GuardedWrites;
  readonly #statements: PortalLinkStatements;

  constructor(db: BetterSqlite3, file: GuardedWrites) {
    this.#file = file;
    this.#statements = prepareStatements(db);
  }

  async create(link: NewPortalLink): Promise<void> {
    withSqliteWrite(this.#file, 'create the portal link', () => {
      const { id, tenant, scopes, secretSha256, createdAt, expiresAt } = link;
      this.#statements.insert.run(id, tenant, scopes.join(' '), secretSha256, Math.round(createdAt), Math.round(expiresAt));
    });
  }

  async find(id: string): Promise<StoredPortalLink | undefined> {
    return withSqliteErrors('read the portal link', () => {
      const row = this.#statements.select.get(id);
      return row && toStoredPortalLink(row);
    });
  }

  async revoke(id: string, at: number): Promise<boolean> {
    return withSqliteWrite(this.#file, 'revoke the portal link', () => this.#statements.revoke.run(Math.round(at), id).changes > 0);
  }

  async list(tenant?: string): Promise<PortalLink[]> {
    return withSqliteErrors('list portal links', () =>
      (tenant === undefined ? this.#statements.listAll.all() : this.#statements.listOfTenant.all(tenant)).map(toPortalLink),
    );
  }
}
