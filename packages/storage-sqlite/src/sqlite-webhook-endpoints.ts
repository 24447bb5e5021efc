import type { Database as BetterSqlite3, Statement } from 'better-sqlite3';
import type { WebhookEndpoint, WebhookEndpointStatus } from '@plant-store/core';
import {
  ENDPOINT_DELETED_ERROR,
  ENDPOINT_DISABLED_ERROR,
  type EndpointAttemptNote,
  type EndpointHealth,
  type EndpointSecrets,
  type EndpointWithSecrets,
  type ListEndpointsQuery,
  type NewWebhookEndpoint,
  type WebhookEndpointChanges,
  type WebhookEndpointRepository,
} from '@plant-store/core/adapter';
import {
  COUNT_TENANT_ENDPOINTS,
  DELETE_ENDPOINT,
  FAIL_PENDING_ATTEMPTS,
  FAIL_PENDING_DELIVERIES,
  INSERT_ENDPOINT,
  LIST_ENDPOINTS,
  LIST_TENANT_ENDPOINTS,
  NOTE_FAILURE,
  NOTE_SUCCESS,
  ROTATE_SECRET,
  SELECT_ENDPOINT,
  UPDATE_ENDPOINT,
} from './endpoint-queries.js';
import { toEndpoint, toHealth, toSecrets, type EndpointHealthRow, type EndpointRow } from './endpoint-rows.js';
import { withSqliteErrors, withSqliteWrite, type GuardedWrites } from './sqlite-error.js';

/** The endpoint statements, prepared once per storage. */
interface EndpointStatements {
  readonly insert: Statement<
    [
      id: string,
      tenant: string,
      url: string,
      eventTypes: string,
      description: string | null,
      rateLimit: number | null,
      headers: string | null,
      secret: string,
      createdAt: number,
      updatedAt: number,
    ],
    EndpointRow
  >;
  readonly select: Statement<[id: string], EndpointRow>;
  /** The count alone (plucked). */
  readonly countOfTenant: Statement<[tenant: string], bigint>;
  readonly listOfTenant: Statement<[tenant: string, after: string, limit: number], EndpointRow>;
  readonly listAll: Statement<[after: string, limit: number], EndpointRow>;
  /** Parameters from `updateParameters`, then the id and the tenant (twice; NULL: any). */
  readonly update: Statement<unknown[], EndpointRow>;
  readonly delete: Statement<[id: string, tenant: string]>;
  readonly rotate: Statement<[secret: string, previousExpiresAt: number, at: number, id: string, tenant: string]>;
  readonly noteSuccess: Statement<[id: string], EndpointHealthRow>;
  readonly noteFailure: Statement<[at: number, exhaustedAt: number | null, id: string], EndpointHealthRow>;
  readonly failPendingAttempts: Statement<[at: number, error: string, endpointId: string]>;
  readonly failPendingDeliveries: Statement<[at: number, endpointId: string]>;
}

function prepareStatements(db: BetterSqlite3): EndpointStatements {
  return {
    insert: db.prepare<[string, string, string, string, string | null, number | null, string | null, string, number, number], EndpointRow>(INSERT_ENDPOINT),
    select: db.prepare<[string], EndpointRow>(SELECT_ENDPOINT),
    countOfTenant: db.prepare<[string], bigint>(COUNT_TENANT_ENDPOINTS).pluck(true),
    listOfTenant: db.prepare<[string, string, number], EndpointRow>(LIST_TENANT_ENDPOINTS),
    listAll: db.prepare<[string, number], EndpointRow>(LIST_ENDPOINTS),
    update: db.prepare<unknown[], EndpointRow>(UPDATE_ENDPOINT),
    delete: db.prepare(DELETE_ENDPOINT),
    rotate: db.prepare(ROTATE_SECRET),
    noteSuccess: db.prepare<[string], EndpointHealthRow>(NOTE_SUCCESS),
    noteFailure: db.prepare<[number, number | null, string], EndpointHealthRow>(NOTE_FAILURE),
    failPendingAttempts: db.prepare(FAIL_PENDING_ATTEMPTS),
    failPendingDeliveries: db.prepare(FAIL_PENDING_DELIVERIES),
  };
}

/** `undefined` → keep the column (NULL parameter + flag 0); `null` → clear it; a value → set it. */
const change = (value: unknown): [number, unknown] => (value === undefined ? [0, null] : [1, value]);

/**
 * Tenants' webhook endpoints in SQLite. Statements are prepared once; the
 * ones that also end pending deliveries run in the write's one IMMEDIATE
 * transaction with those deliveries' statements.
 */
export class SqliteWebhookEndpoints implements WebhookEndpointRepository {
  readonly #statements: EndpointStatements;
  readonly #update: (tenant: string | undefined, id: string, changes: WebhookEndpointChanges) => WebhookEndpoint | undefined;
  readonly #delete: (tenant: string, id: string, at: number) => boolean;
  readonly #create: (endpoint: NewWebhookEndpoint, maxPerTenant: number) => WebhookEndpoint | undefined;
  readonly #file: GuardedWrites;

  constructor(db: BetterSqlite3, file: GuardedWrites) {
    this.#file = file;
    const s = (this.#statements = prepareStatements(db));
    /** Ends the endpoint's pending deliveries as failed, each with a last attempt saying why; runs inside the caller's transaction. */
    const failPending = (endpointId: string, at: number, error: string) => {
      s.failPendingAttempts.run(Math.round(at), error, endpointId);
      s.failPendingDeliveries.run(Math.round(at), endpointId);
    };
    // These run inside the guarded write's IMMEDIATE transaction (see
    // withSqliteWrite), which is their transaction: a transaction of their own
    // would only nest as a savepoint, two more statements per write.
    this.#update = (tenant, id, changes) => {
      const row = s.update.get(...updateParameters(changes), id, tenant ?? null, tenant ?? null);
      if (!row) return undefined;
      const updated = toEndpoint(row);
      if (updated.status === 'disabled') failPending(id, changes.updatedAt, ENDPOINT_DISABLED_ERROR);
      return updated;
    };
    // IMMEDIATE takes the write lock before counting, so two creates (also
    // from two processes on the file) cannot both see room for one more.
    this.#create = (endpoint, maxPerTenant) => {
      if (Number(s.countOfTenant.get(endpoint.tenant)) >= maxPerTenant) return undefined;
      return toEndpoint(s.insert.get(...insertParameters(endpoint))!);
    };
    this.#delete = (tenant, id, at) => {
      if (s.delete.run(id, tenant).changes === 0) return false;
      failPending(id, at, ENDPOINT_DELETED_ERROR);
      return true;
    };
  }

  async create(endpoint: NewWebhookEndpoint, maxPerTenant: number): Promise<WebhookEndpoint | undefined> {
    return withSqliteWrite(this.#file, 'create the endpoint', () => this.#create(endpoint, maxPerTenant));
  }

  async get(tenant: string, id: string): Promise<WebhookEndpoint | undefined> {
    return withSqliteErrors('read the endpoint', () => {
      const row = this.#owned(tenant, id);
      return row && toEndpoint(row);
    });
  }

  async list(tenant: string, query: ListEndpointsQuery): Promise<WebhookEndpoint[]> {
    return withSqliteErrors('list endpoints', () => this.#statements.listOfTenant.all(tenant, query.after ?? '', Math.max(0, query.limit)).map(toEndpoint));
  }

  async update(tenant: string, id: string, changes: WebhookEndpointChanges): Promise<WebhookEndpoint | undefined> {
    return withSqliteWrite(this.#file, 'update the endpoint', () => this.#update(tenant, id, changes));
  }

  async delete(tenant: string, id: string, at: number): Promise<boolean> {
    return withSqliteWrite(this.#file, 'delete the endpoint', () => this.#delete(tenant, id, Math.round(at)));
  }

  async secrets(tenant: string, id: string): Promise<EndpointSecrets | undefined> {
    return withSqliteErrors('read the endpoint secret', () => {
      const row = this.#owned(tenant, id);
      return row && toSecrets(row);
    });
  }

  async rotateSecret(tenant: string, id: string, secret: string, previousExpiresAt: number, at: number): Promise<boolean> {
    return withSqliteWrite(
      this.#file,
      'rotate the endpoint secret',
      () => this.#statements.rotate.run(secret, Math.round(previousExpiresAt), Math.round(at), id, tenant).changes > 0,
    );
  }

  async find(id: string): Promise<EndpointWithSecrets | undefined> {
    return withSqliteErrors('read the endpoint', () => {
      const row = this.#statements.select.get(id);
      return row && { endpoint: toEndpoint(row), secrets: toSecrets(row) };
    });
  }

  async listAll(query: ListEndpointsQuery): Promise<WebhookEndpoint[]> {
    return withSqliteErrors('list endpoints', () => this.#statements.listAll.all(query.after ?? '', Math.max(0, query.limit)).map(toEndpoint));
  }

  async setStatus(id: string, status: WebhookEndpointStatus, reason: string | undefined, at: number): Promise<WebhookEndpoint | undefined> {
    return withSqliteWrite(this.#file, 'update the endpoint', () =>
      this.#update(undefined, id, { status, disabledReason: reason ?? null, updatedAt: Math.round(at) }),
    );
  }

  async noteAttempt(id: string, note: EndpointAttemptNote): Promise<EndpointHealth | undefined> {
    return withSqliteWrite(this.#file, 'note an endpoint attempt', () => {
      const at = Math.round(note.at);
      const row = note.succeeded ? this.#statements.noteSuccess.get(id) : this.#statements.noteFailure.get(at, note.exhausted ? at : null, id);
      return row === undefined ? undefined : toHealth(row);
    });
  }

  #owned(tenant: string, id: string): EndpointRow | undefined {
    const row = this.#statements.select.get(id);
    return row?.tenant === tenant ? row : undefined;
  }
}

/** The update's parameters: a keep/set flag and a value per column, in the statement's order. */
function updateParameters(changes: WebhookEndpointChanges): unknown[] {
  const eventTypes = changes.eventTypes && JSON.stringify(changes.eventTypes);
  const rateLimit = changes.rateLimit === undefined || changes.rateLimit === null ? changes.rateLimit : Math.round(changes.rateLimit);
  const headers = changes.headers && JSON.stringify(changes.headers);
  return [
    ...change(changes.url),
    ...change(eventTypes),
    ...change(changes.description),
    ...change(rateLimit),
    ...change(headers),
    ...change(changes.status),
    ...change(changes.disabledReason),
    Math.round(changes.updatedAt),
  ];
}

/** The insert statement's parameters, in its column order. */
function insertParameters(endpoint: NewWebhookEndpoint) {
  const { id, tenant, url, eventTypes, description, rateLimit, headers, secret, createdAt } = endpoint;
  const at = Math.round(createdAt);
  const headersJson = headers ? JSON.stringify(headers) : null;
  return [id, tenant, url, JSON.stringify(eventTypes), description ?? null, rateLimit ?? null, headersJson, secret, at, at] as const;
}
