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
import { advisoryLockKey } from './advisory-lock-key.js';
import type { NotificationListener } from './notification-listener.js';
import { changedEndpoint, endpointChangePayload, OUTBOX_CHANNEL } from './outbox-channel.js';
import type { PostgresWebhookOutbox } from './postgres-webhook-outbox.js';
import type { QueryRunner, TransactionRows } from './query-runner.js';
import type { Tables } from './tables.js';

/** A webhook_endpoints row (int8 as bigint, integer as number, text[] as an array). */
interface EndpointRow {
  readonly id: string;
  readonly tenant: string;
  readonly url: string;
  readonly event_types: WebhookEventType[];
  readonly description: string | null;
  readonly rate_limit: number | null;
  /** jsonb, parsed by pg. */
  readonly headers: Record<string, string> | null;
  /** The filter's JSON text. */
  readonly filter: string | null;
  readonly ordering: EndpointOrdering;
  readonly status: WebhookEndpointStatus;
  readonly disabled_reason: string | null;
  readonly secret: string;
  readonly previous_secret: string | null;
  readonly previous_secret_expires_at: bigint | null;
  readonly created_at: bigint;
  readonly updated_at: bigint;
  readonly parked_dropped: bigint;
}

/** How the endpoint has been doing (what auto-disable decides on), int8 as bigint. */
interface HealthRow {
  readonly failing_since: bigint | null;
  readonly exhausted_at: bigint | null;
}

function toEndpoint(row: EndpointRow): WebhookEndpoint {
  return {
    id: row.id,
    tenant: row.tenant,
    url: row.url,
    eventTypes: [...row.event_types],
    ...(row.description !== null ? { description: row.description } : {}),
    ...(row.rate_limit !== null ? { rateLimit: row.rate_limit } : {}),
    ...(row.headers !== null ? { headers: row.headers } : {}),
    ...(row.filter !== null ? { filter: parseFilter(row.filter) } : {}),
    ordering: row.ordering,
    status: row.status,
    ...(row.disabled_reason !== null && row.status === 'disabled' ? { disabledReason: row.disabled_reason } : {}),
    ...(row.parked_dropped > 0n && { parkedDropped: Number(row.parked_dropped) }),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

function toHealth(row: HealthRow): EndpointHealth {
  return {
    ...(row.failing_since !== null && { failingSince: Number(row.failing_since) }),
    ...(row.exhausted_at !== null && { exhaustedAt: Number(row.exhausted_at) }),
  };
}

function toSecrets(row: EndpointRow): EndpointSecrets {
  if (row.previous_secret === null || row.previous_secret_expires_at === null) return { current: row.secret };
  return { current: row.secret, previous: row.previous_secret, previousExpiresAt: Number(row.previous_secret_expires_at) };
}

/** The advisory lock key of a tenant's endpoints in `endpoints` (a schema's table), for taking turns at creating them. */
const tenantLockKey = (endpoints: string, tenant: string) => advisoryLockKey(`plant-store endpoints of tenant ${JSON.stringify(tenant)} in ${endpoints}`);

/** What enabling a disabled endpoint does with its parked messages unless told otherwise. */
const REPLAY_ALL: ParkedChoice = { action: 'replay' };

/** `undefined` → keep the column; `null` → clear it; a value → set it: a flag and a value per column. */
const change = (value: unknown): [boolean, unknown] => (value === undefined ? [false, null] : [true, value]);

/** Where changes of endpoints are announced to every instance: the schema's notices on the shared LISTEN connection. */
interface EndpointNotices {
  readonly schema: string;
  readonly listener: NotificationListener;
}

/**
 * Tenants' webhook endpoints in PostgreSQL. A disable parks the endpoint's deliveries, an enable replays or discards them, and a delete
 * ends them, through the outbox, in the same transaction.
 * Every change a delivery depends on is announced by a NOTIFY in its transaction, so PostgreSQL delivers it at the commit and drops it on a rollback.
 * So is an attempt note that starts a failing streak: `find` reports the endpoint's health, and other instances note no success while they know of no streak.
 */
export class PostgresWebhookEndpoints implements WebhookEndpointRepository {
  readonly #runner: QueryRunner;
  readonly #tables: Tables;
  readonly #outbox: Pick<PostgresWebhookOutbox, 'endLines' | 'parkLines' | 'unpark'>;
  readonly #notices: EndpointNotices;

  constructor(runner: QueryRunner, tables: Tables, outbox: Pick<PostgresWebhookOutbox, 'endLines' | 'parkLines' | 'unpark'>, notices: EndpointNotices) {
    this.#runner = runner;
    this.#tables = tables;
    this.#outbox = outbox;
    this.#notices = notices;
  }

  watch(listener: (id?: string) => void): () => void {
    const { schema, listener: notices } = this.#notices;
    return notices.subscribe((payload) => {
      if (payload === undefined) return listener();
      const id = changedEndpoint(schema, payload);
      if (id !== undefined) listener(id);
    });
  }

  /** Announces the change of endpoint `id` to every instance once the transaction commits. */
  async #announce(rows: TransactionRows, id: string): Promise<void> {
    await rows('SELECT pg_notify($1, $2)', [OUTBOX_CHANNEL, endpointChangePayload(this.#notices.schema, id)]);
  }

  async create(endpoint: NewWebhookEndpoint, maxPerTenant: number): Promise<WebhookEndpoint | undefined> {
    const { id, tenant, url, eventTypes, description, rateLimit, headers, filter, ordering = 'none', secret, createdAt } = endpoint;
    const headersJson = headers ? JSON.stringify(headers) : null;
    const parameters = [
      id,
      tenant,
      url,
      [...eventTypes],
      description ?? null,
      rateLimit ?? null,
      secret,
      Math.round(createdAt),
      maxPerTenant,
      headersJson,
      ordering,
      filter ? filterText(filter) : null,
    ];
    // Creates of one tenant take turns (on every instance): a statement's snapshot predates any lock it waits for,
    // so the count runs in a statement after it.
    const [row] = await this.#runner.transaction('create the endpoint', async (rows) => {
      await rows('SELECT pg_advisory_xact_lock($1::bigint)', [tenantLockKey(this.#tables.endpoints, tenant)]);
      return rows<EndpointRow>(sql.insertEndpointSql(this.#tables), parameters);
    });
    return row && toEndpoint(row);
  }

  async get(tenant: string, id: string): Promise<WebhookEndpoint | undefined> {
    const row = await this.#select(id, tenant);
    return row && toEndpoint(row);
  }

  async list(tenant: string | null, query: ListEndpointsQuery): Promise<WebhookEndpoint[]> {
    const parameters = [tenant, query.after ?? '', Math.max(0, query.limit)];
    return (await this.#runner.rows<EndpointRow>('list endpoints', sql.listEndpointsSql(this.#tables), parameters)).map(toEndpoint);
  }

  async delete(tenant: string, id: string, at: number): Promise<boolean> {
    return this.#runner.transaction('delete the endpoint', async (rows) => {
      if ((await rows(sql.deleteEndpointSql(this.#tables), [id, tenant])).length === 0) return false;
      await this.#outbox.endLines(rows, id, at, ENDPOINT_DELETED_ERROR);
      await this.#announce(rows, id);
      return true;
    });
  }

  async secrets(tenant: string, id: string): Promise<EndpointSecrets | undefined> {
    const row = await this.#select(id, tenant);
    return row && toSecrets(row);
  }

  async rotateSecret(tenant: string, id: string, secret: string, previousExpiresAt: number, at: number): Promise<boolean> {
    const parameters = [id, tenant, secret, Math.round(previousExpiresAt), Math.round(at), OUTBOX_CHANNEL, endpointChangePayload(this.#notices.schema, id)];
    return (await this.#runner.rows('rotate the endpoint secret', sql.rotateSecretSql(this.#tables), parameters)).length > 0;
  }

  async find(id: string): Promise<EndpointWithSecrets | undefined> {
    const row = await this.#select(id, null);
    return row && { endpoint: toEndpoint(row), secrets: toSecrets(row), health: toHealth(row) };
  }

  async listAll(query: ListEndpointsQuery): Promise<WebhookEndpoint[]> {
    return this.list(null, query);
  }

  async setStatus(
    id: string,
    status: WebhookEndpointStatus,
    reason: string | undefined,
    at: number,
    parked?: ParkedChoice,
  ): Promise<WebhookEndpoint | undefined> {
    return this.update(null, id, { status, disabledReason: reason ?? null, updatedAt: at, ...(parked && { parked }) });
  }

  async noteAttempt(id: string, note: EndpointAttemptNote): Promise<EndpointHealth | undefined> {
    const at = Math.round(note.at);
    const parameters = [id, note.succeeded, at, note.exhausted ? at : null, OUTBOX_CHANNEL, endpointChangePayload(this.#notices.schema, id)];
    const [row] = await this.#runner.rows<HealthRow>('note an endpoint attempt', sql.noteAttemptSql(this.#tables), parameters);
    return row && toHealth(row);
  }

  async #select(id: string, tenant: string | null): Promise<(EndpointRow & HealthRow) | undefined> {
    return (await this.#runner.rows<EndpointRow & HealthRow>('read the endpoint', sql.selectEndpointSql(this.#tables), [id, tenant]))[0];
  }

  async update(tenant: string | null, id: string, changes: WebhookEndpointChanges): Promise<WebhookEndpoint | undefined> {
    const rateLimit = changes.rateLimit === undefined || changes.rateLimit === null ? changes.rateLimit : Math.round(changes.rateLimit);
    const parameters = [
      id,
      tenant,
      ...change(changes.url),
      ...change(changes.eventTypes && [...changes.eventTypes]),
      ...change(changes.description),
      ...change(rateLimit),
      ...change(changes.status),
      ...change(changes.disabledReason),
      Math.round(changes.updatedAt),
      ...change(changes.headers && JSON.stringify(changes.headers)),
      ...change(changes.ordering),
      ...change(changes.filter && filterText(changes.filter)),
    ];
    const row = await this.#runner.transaction('update the endpoint', async (rows) => {
      // A change of status locks the row first (see lockEndpointStatusSql), so it knows the status it changes from.
      const [before] = changes.status === undefined ? [] : await rows<{ status: WebhookEndpointStatus }>(sql.lockEndpointStatusSql(this.#tables), [id, tenant]);
      if (changes.status !== undefined && !before) return undefined;
      const [updated] = await rows<EndpointRow>(sql.updateEndpointSql(this.#tables), parameters);
      if (!updated) return undefined;
      const changed = await this.#statusChanged(rows, updated, before?.status, changes);
      await this.#announce(rows, id);
      return changed;
    });
    return row && toEndpoint(row);
  }

  /** What a change of status does to the endpoint's deliveries (see `setStatus`), in its transaction; answers the endpoint as it is after it. */
  async #statusChanged(rows: TransactionRows, updated: EndpointRow, before: WebhookEndpointStatus | undefined, changes: WebhookEndpointChanges) {
    if (before === 'enabled' && updated.status === 'disabled') {
      await this.#outbox.parkLines(rows, updated.id, changes.updatedAt);
      // Parking started the count of dropped messages again, and the bound may have dropped some.
      return (await rows<EndpointRow>(sql.selectEndpointSql(this.#tables), [updated.id, null]))[0];
    }
    if (before === 'disabled' && updated.status === 'enabled') {
      const replayed = await this.#outbox.unpark(rows, updated.id, changes.updatedAt, changes.parked ?? REPLAY_ALL);
      // Due at once: every instance's dispatcher is woken at the commit.
      if (replayed > 0) await rows('SELECT pg_notify($1, $2)', [OUTBOX_CHANNEL, this.#notices.schema]);
    }
    return updated;
  }
}
