import type { Database as BetterSqlite3 } from 'better-sqlite3';
import type { EndpointOrdering, WebhookEndpoint, WebhookEndpointStatus, WebhookEventType } from '@plant-store/core';
import {
  ENDPOINT_DELETED_ERROR,
  filterText,
  parseFilter,
  type EndpointAttemptNote,
  type EndpointHealth,
  type EndpointSecrets,
  type EndpointWithSecrets,
  type ListEndpointsQuery,
  type NewWebhookEndpoint,
  type ParkedChoice,
  type WebhookEndpointChanges,
  type WebhookEndpointRepository,
} from '@plant-store/core/adapter';
import * as sql from './endpoint-queries.js';
import { preparedStatements, type PreparedStatements } from './prepared-statements.js';
import { withSqliteErrors, withSqliteWrite, type GuardedWrites } from './sqlite-error.js';
import type { SqliteWebhookOutbox } from './sqlite-webhook-outbox.js';

/** A webhook_endpoints row (integers read as bigint: the connection uses safe integers). */
interface EndpointRow {
  id: string;
  tenant: string;
  url: string;
  /** The event types, a JSON array. */
  event_types: string;
  description: string | null;
  rate_limit: bigint | null;
  /** The custom headers, a JSON object. */
  headers: string | null;
  /** The filter, its JSON text. */
  filter: string | null;
  ordering: EndpointOrdering;
  status: WebhookEndpointStatus;
  disabled_reason: string | null;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: bigint | null;
  failing_since: bigint | null;
  exhausted_at: bigint | null;
  created_at: bigint;
  updated_at: bigint;
  /** Parked messages the bound dropped since it was last disabled. */
  parked_dropped: bigint;
}

function toEndpoint(row: EndpointRow): WebhookEndpoint {
  return {
    id: row.id,
    tenant: row.tenant,
    url: row.url,
    eventTypes: JSON.parse(row.event_types) as WebhookEventType[],
    ...(row.description !== null ? { description: row.description } : {}),
    ...(row.rate_limit !== null ? { rateLimit: Number(row.rate_limit) } : {}),
    ...(row.headers !== null ? { headers: JSON.parse(row.headers) as Record<string, string> } : {}),
    ...(row.filter !== null ? { filter: parseFilter(row.filter) } : {}),
    ordering: row.ordering,
    status: row.status,
    ...(row.disabled_reason !== null && row.status === 'disabled' ? { disabledReason: row.disabled_reason } : {}),
    ...(row.parked_dropped > 0n && { parkedDropped: Number(row.parked_dropped) }),
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
    ...(row.failing_since !== null && { failingSince: Number(row.failing_since) }),
    ...(row.exhausted_at !== null && { exhaustedAt: Number(row.exhausted_at) }),
  };
}

/** `undefined` → keep the column (NULL parameter + flag 0); `null` → clear it; a value → set it. */
const change = (value: unknown): [number, unknown] => (value === undefined ? [0, null] : [1, value]);

/** Enabling without a choice replays every parked message. */
const REPLAY_ALL: ParkedChoice = { action: 'replay' };

/**
 * Tenants' webhook endpoints in SQLite. Through the outbox, in the same transaction: a disable parks the endpoint's deliveries, an
 * enable replays or discards them, a delete ends them.
 */
export class SqliteWebhookEndpoints implements WebhookEndpointRepository {
  readonly #prepared: PreparedStatements;
  readonly #file: GuardedWrites;
  readonly #outbox: Pick<SqliteWebhookOutbox, 'endLines' | 'parkLines' | 'unpark'>;

  constructor(db: BetterSqlite3, file: GuardedWrites, outbox: Pick<SqliteWebhookOutbox, 'endLines' | 'parkLines' | 'unpark'>) {
    this.#file = file;
    this.#prepared = preparedStatements(db);
    this.#outbox = outbox;
  }

  /** IMMEDIATE takes the write lock before counting, so two creates (also from two processes) cannot both see room for one more. */
  async create(endpoint: NewWebhookEndpoint, maxPerTenant: number): Promise<WebhookEndpoint | undefined> {
    return withSqliteWrite(this.#file, 'create the endpoint', () => {
      if (Number(this.#prepared<bigint>(sql.COUNT_TENANT_ENDPOINTS).pluck(true).get(endpoint.tenant)) >= maxPerTenant) return undefined;
      return toEndpoint(this.#prepared<EndpointRow>(sql.INSERT_ENDPOINT).get(...insertParameters(endpoint))!);
    });
  }

  async get(tenant: string, id: string): Promise<WebhookEndpoint | undefined> {
    return withSqliteErrors('read the endpoint', () => {
      const row = this.#owned(tenant, id);
      return row && toEndpoint(row);
    });
  }

  async list(tenant: string, query: ListEndpointsQuery): Promise<WebhookEndpoint[]> {
    return this.#list(sql.LIST_TENANT_ENDPOINTS, [tenant], query);
  }

  async update(tenant: string, id: string, changes: WebhookEndpointChanges): Promise<WebhookEndpoint | undefined> {
    return withSqliteWrite(this.#file, 'update the endpoint', () => this.#update(tenant, id, changes));
  }

  async delete(tenant: string, id: string, at: number): Promise<boolean> {
    return withSqliteWrite(this.#file, 'delete the endpoint', () => {
      if (this.#prepared(sql.DELETE_ENDPOINT).run(id, tenant).changes === 0) return false;
      this.#outbox.endLines(id, at, ENDPOINT_DELETED_ERROR);
      return true;
    });
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
      () => this.#prepared(sql.ROTATE_SECRET).run(secret, Math.round(previousExpiresAt), Math.round(at), id, tenant).changes > 0,
    );
  }

  async find(id: string): Promise<EndpointWithSecrets | undefined> {
    return withSqliteErrors('read the endpoint', () => {
      const row = this.#prepared<EndpointRow>(sql.SELECT_ENDPOINT).get(id);
      return row && { endpoint: toEndpoint(row), secrets: toSecrets(row), health: toHealth(row) };
    });
  }

  async listAll(query: ListEndpointsQuery): Promise<WebhookEndpoint[]> {
    return this.#list(sql.LIST_ENDPOINTS, [], query);
  }

  async setStatus(
    id: string,
    status: WebhookEndpointStatus,
    reason: string | undefined,
    at: number,
    parked?: ParkedChoice,
  ): Promise<WebhookEndpoint | undefined> {
    return withSqliteWrite(this.#file, 'update the endpoint', () =>
      this.#update(undefined, id, { status, disabledReason: reason ?? null, updatedAt: Math.round(at), ...(parked && { parked }) }),
    );
  }

  async noteAttempt(id: string, note: EndpointAttemptNote): Promise<EndpointHealth | undefined> {
    return withSqliteWrite(this.#file, 'note an endpoint attempt', () => {
      const at = Math.round(note.at);
      const row = note.succeeded
        ? this.#prepared<EndpointRow>(sql.NOTE_SUCCESS).get(id)
        : this.#prepared<EndpointRow>(sql.NOTE_FAILURE).get(at, note.exhausted ? at : null, id);
      return row && toHealth(row);
    });
  }

  #list(statement: string, tenant: string[], { after = '', limit }: ListEndpointsQuery): WebhookEndpoint[] {
    return withSqliteErrors('list endpoints', () =>
      this.#prepared<EndpointRow>(statement)
        .all(...tenant, after, Math.max(0, limit))
        .map(toEndpoint),
    );
  }

  #owned(tenant: string, id: string): EndpointRow | undefined {
    const row = this.#prepared<EndpointRow>(sql.SELECT_ENDPOINT).get(id);
    return row?.tenant === tenant ? row : undefined;
  }

  /**
   * The update, then what its status means for the endpoint's deliveries. Disabled: what is pending is parked (also on an update
   * of an endpoint already disabled, for one whose attempt's lease ran out without an outcome), a new time off counting its
   * drops afresh. Enabled from disabled: the parked ones are replayed or discarded.
   */
  #update(tenant: string | undefined, id: string, changes: WebhookEndpointChanges): WebhookEndpoint | undefined {
    const before = this.#prepared<WebhookEndpointStatus>(sql.SELECT_STATUS).pluck(true).get(id);
    const row = this.#prepared<EndpointRow>(sql.UPDATE_ENDPOINT).get(...updateParameters(changes), id, tenant ?? null, tenant ?? null);
    if (!row) return undefined;
    if (row.status === 'enabled') {
      if (before === 'disabled') this.#outbox.unpark(id, changes.parked ?? REPLAY_ALL, changes.updatedAt);
      return toEndpoint(row);
    }
    const newPeriod = before === 'enabled';
    const dropped = this.#outbox.parkLines(id, changes.updatedAt, newPeriod);
    return toEndpoint({ ...row, parked_dropped: (newPeriod ? 0n : row.parked_dropped) + BigInt(dropped) });
  }
}

function updateParameters(changes: WebhookEndpointChanges): unknown[] {
  const eventTypes = changes.eventTypes && JSON.stringify(changes.eventTypes);
  const rateLimit = changes.rateLimit === undefined || changes.rateLimit === null ? changes.rateLimit : Math.round(changes.rateLimit);
  const headers = changes.headers && JSON.stringify(changes.headers);
  const filter = changes.filter && filterText(changes.filter);
  return [
    ...change(changes.url),
    ...change(eventTypes),
    ...change(changes.description),
    ...change(rateLimit),
    ...change(headers),
    ...change(filter),
    ...change(changes.ordering),
    ...change(changes.status),
    ...change(changes.disabledReason),
    Math.round(changes.updatedAt),
  ];
}

function insertParameters(endpoint: NewWebhookEndpoint) {
  const { id, tenant, url, eventTypes, description, rateLimit, headers, filter, ordering = 'none', secret, createdAt } = endpoint;
  const at = Math.round(createdAt);
  const headersJson = headers ? JSON.stringify(headers) : null;
  const filterJson = filter ? filterText(filter) : null;
  return [id, tenant, url, JSON.stringify(eventTypes), description ?? null, rateLimit ?? null, headersJson, filterJson, ordering, secret, at, at] as const;
}
