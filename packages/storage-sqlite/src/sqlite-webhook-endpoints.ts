import type { Database as BetterSqlite3, Statement } from 'better-sqlite3';
import type { WebhookEndpoint, WebhookEndpointStatus, WebhookEventType } from '@plant-store/core';
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
import { withSqliteErrors, withSqliteWrite, type GuardedWrites } from './sqlite-error.js';

/** A webhook_endpoints row (integers read as bigint: the connection uses safe integers). */
interface EndpointRow {
  id: string;
  tenant: string;
  url: string;
  event_types: string;
  description: string | null;
  rate_limit: bigint | null;
  status: WebhookEndpointStatus;
  disabled_reason: string | null;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: bigint | null;
  failing_since: bigint | null;
  exhausted_at: bigint | null;
  created_at: bigint;
  updated_at: bigint;
}

function toEndpoint(row: EndpointRow): WebhookEndpoint {
  return {
    id: row.id,
    tenant: row.tenant,
    url: row.url,
    eventTypes: JSON.parse(row.event_types) as WebhookEventType[],
    ...(row.description !== null ? { description: row.description } : {}),
    ...(row.rate_limit !== null ? { rateLimit: Number(row.rate_limit) } : {}),
    status: row.status,
    ...(row.disabled_reason !== null && row.status === 'disabled' ? { disabledReason: row.disabled_reason } : {}),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

function toSecrets(row: EndpointRow): EndpointSecrets {
  if (row.previous_secret === null || row.previous_secret_expires_at === null) return { current: row.secret };
  return { current: row.secret, previous: row.previous_secret, previousExpiresAt: Number(row.previous_secret_expires_at) };
}

function toHealth(row: Pick<EndpointRow, 'failing_since' | 'exhausted_at'>): EndpointHealth {
  return {
    ...(row.failing_since !== null ? { failingSince: Number(row.failing_since) } : {}),
    ...(row.exhausted_at !== null ? { exhaustedAt: Number(row.exhausted_at) } : {}),
  };
}

/** `undefined` → keep the column (NULL parameter + flag 0); `null` → clear it; a value → set it. */
const change = (value: unknown): [number, unknown] => (value === undefined ? [0, null] : [1, value]);

/**
 * Tenants' webhook endpoints in SQLite. Statements are prepared once; the
 * ones that also end pending deliveries run in one IMMEDIATE transaction
 * with the outbox's statements.
 */
export class SqliteWebhookEndpoints implements WebhookEndpointRepository {
  readonly #statements: Record<string, Statement>;
  readonly #update: (tenant: string | undefined, id: string, changes: WebhookEndpointChanges) => WebhookEndpoint | undefined;
  readonly #delete: (tenant: string, id: string, at: number) => boolean;
  readonly #create: (endpoint: NewWebhookEndpoint, maxPerTenant: number) => WebhookEndpoint | undefined;
  readonly #file: GuardedWrites;

  constructor(db: BetterSqlite3, file: GuardedWrites) {
    this.#file = file;
    this.#statements = prepareStatements(db);
    const failPending = prepareFailPending(db);
    const s = this.#statements;
    this.#update = db
      .transaction((tenant: string | undefined, id: string, changes: WebhookEndpointChanges) => {
        const row = s['select']!.get(id) as EndpointRow | undefined;
        if (!row || (tenant !== undefined && row.tenant !== tenant)) return undefined;
        s['update']!.run(...updateParameters(changes), id);
        const updated = toEndpoint(s['select']!.get(id) as EndpointRow);
        if (updated.status === 'disabled') failPending(id, changes.updatedAt, ENDPOINT_DISABLED_ERROR);
        return updated;
      })
      .immediate;
    // IMMEDIATE takes the write lock before counting, so two creates (also
    // from two processes on the file) cannot both see room for one more.
    this.#create = db.transaction((endpoint: NewWebhookEndpoint, maxPerTenant: number) => {
      const { id, tenant, url, eventTypes, description, rateLimit, secret, createdAt } = endpoint;
      if (Number(s['countOfTenant']!.get(tenant)) >= maxPerTenant) return undefined;
      const at = Math.round(createdAt);
      s['insert']!.run(id, tenant, url, JSON.stringify(eventTypes), description ?? null, rateLimit ?? null, secret, at, at);
      return toEndpoint(s['select']!.get(id) as EndpointRow);
    }).immediate;
    this.#delete = db.transaction((tenant: string, id: string, at: number) => {
      if (s['delete']!.run(id, tenant).changes === 0) return false;
      failPending(id, at, ENDPOINT_DELETED_ERROR);
      return true;
    }).immediate;
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
    return withSqliteErrors('list endpoints', () =>
      (this.#statements['list']!.all(tenant, query.after ?? '', Math.max(0, query.limit)) as EndpointRow[]).map(toEndpoint),
    );
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
    return withSqliteWrite(this.#file, 'rotate the endpoint secret', () => {
      const parameters = [secret, Math.round(previousExpiresAt), Math.round(at), id, tenant];
      return this.#statements['rotate']!.run(...parameters).changes > 0;
    });
  }

  async find(id: string): Promise<EndpointWithSecrets | undefined> {
    return withSqliteErrors('read the endpoint', () => {
      const row = this.#statements['select']!.get(id) as EndpointRow | undefined;
      return row && { endpoint: toEndpoint(row), secrets: toSecrets(row) };
    });
  }

  async listAll(query: ListEndpointsQuery): Promise<WebhookEndpoint[]> {
    return withSqliteErrors('list endpoints', () =>
      (this.#statements['listAll']!.all(query.after ?? '', Math.max(0, query.limit)) as EndpointRow[]).map(toEndpoint),
    );
  }

  async setStatus(id: string, status: WebhookEndpointStatus, reason: string | undefined, at: number): Promise<WebhookEndpoint | undefined> {
    return withSqliteWrite(this.#file, 'update the endpoint', () =>
      this.#update(undefined, id, { status, disabledReason: reason ?? null, updatedAt: Math.round(at) }),
    );
  }

  async noteAttempt(id: string, note: EndpointAttemptNote): Promise<EndpointHealth | undefined> {
    return withSqliteWrite(this.#file, 'note an endpoint attempt', () => {
      const at = Math.round(note.at);
      const row = note.succeeded
        ? this.#statements['noteSuccess']!.get(id)
        : this.#statements['noteFailure']!.get(at, note.exhausted ? at : null, id);
      return row === undefined ? undefined : toHealth(row as Pick<EndpointRow, 'failing_since' | 'exhausted_at'>);
    });
  }

  #owned(tenant: string, id: string): EndpointRow | undefined {
    const row = this.#statements['select']!.get(id) as EndpointRow | undefined;
    return row?.tenant === tenant ? row : undefined;
  }
}

/** The update's parameters: a keep/set flag and a value per column, in the statement's order. */
function updateParameters(changes: WebhookEndpointChanges): unknown[] {
  const eventTypes = changes.eventTypes && JSON.stringify(changes.eventTypes);
  const rateLimit = changes.rateLimit === undefined || changes.rateLimit === null ? changes.rateLimit : Math.round(changes.rateLimit);
  return [
    ...change(changes.url),
    ...change(eventTypes),
    ...change(changes.description),
    ...change(rateLimit),
    ...change(changes.status),
    ...change(changes.disabledReason),
    Math.round(changes.updatedAt),
  ];
}

const COLUMNS = `id, tenant, url, event_types, description, rate_limit, status, disabled_reason, secret, previous_secret,
  previous_secret_expires_at, failing_since, exhausted_at, created_at, updated_at`;

function prepareStatements(db: BetterSqlite3): Record<string, Statement> {
  const set = (column: string) => `${column} = CASE WHEN ? THEN ? ELSE ${column} END`;
  return {
    insert: db.prepare(
      `INSERT INTO webhook_endpoints (id, tenant, url, event_types, description, rate_limit, status, secret, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, 'enabled', ?, ?, ?)`,
    ),
    select: db.prepare(`SELECT ${COLUMNS} FROM webhook_endpoints WHERE id = ?`),
    countOfTenant: db.prepare('SELECT count(*) FROM webhook_endpoints WHERE tenant = ?').pluck(true),
    list: db.prepare(`SELECT ${COLUMNS} FROM webhook_endpoints WHERE tenant = ? AND id > ? ORDER BY id LIMIT ?`),
    listAll: db.prepare(`SELECT ${COLUMNS} FROM webhook_endpoints WHERE id > ? ORDER BY id LIMIT ?`),
    // Enabling clears the reason whatever the update says.
    update: db.prepare(
      `UPDATE webhook_endpoints SET ${['url', 'event_types', 'description', 'rate_limit', 'status', 'disabled_reason'].map(set).join(', ')},
         updated_at = ?
       WHERE id = ?`,
    ),
    delete: db.prepare('DELETE FROM webhook_endpoints WHERE id = ? AND tenant = ?'),
    rotate: db.prepare(
      `UPDATE webhook_endpoints SET previous_secret = secret, secret = ?, previous_secret_expires_at = ?, updated_at = ?
       WHERE id = ? AND tenant = ?`,
    ),
    noteSuccess: db.prepare(
      `UPDATE webhook_endpoints SET failing_since = NULL, exhausted_at = NULL WHERE id = ? RETURNING failing_since, exhausted_at`,
    ),
    noteFailure: db.prepare(
      `UPDATE webhook_endpoints SET failing_since = coalesce(failing_since, ?), exhausted_at = coalesce(exhausted_at, ?)
       WHERE id = ? RETURNING failing_since, exhausted_at`,
    ),
  };
}

/** Ends the endpoint's pending deliveries as failed, each with a last attempt saying why; runs inside the caller's transaction. */
function prepareFailPending(db: BetterSqlite3): (endpointId: string, at: number, error: string) => void {
  const insertAttempts = db.prepare(
    `INSERT INTO webhook_attempts (delivery_id, attempt, at, duration_ms, status_code, error, interrupted)
     SELECT d.id, (SELECT coalesce(max(a.attempt), 0) + 1 FROM webhook_attempts AS a WHERE a.delivery_id = d.id), ?, 0, NULL, ?, 0
     FROM webhook_deliveries AS d WHERE d.endpoint_id = ? AND d.status = 'pending'`,
  );
  const fail = db.prepare(
    `UPDATE webhook_deliveries
     SET status = 'failed', attempt_count = attempt_count + 1, next_attempt_at = NULL, lease_owner = NULL, lease_expires_at = NULL, updated_at = ?
     WHERE endpoint_id = ? AND status = 'pending'`,
  );
  return (endpointId, at, error) => {
    insertAttempts.run(Math.round(at), error, endpointId);
    fail.run(Math.round(at), endpointId);
  };
}
