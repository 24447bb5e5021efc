import { StorageError, type WebhookEndpoint, type WebhookEndpointStatus, type WebhookEventType } from '@plant-store/core';
import {
  ENDPOINT_DELETED_ERROR,
  filterEvent,
  filterText,
  matchesFilter,
  parseFilter,
  type FilterEvent,
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
import { assertOpen, type MemoryLifecycle } from './memory-lifecycle.js';
import type { MemoryWebhookOutbox } from './memory-webhook-outbox.js';

/** Mutable state of one endpoint; never handed out (callers get copies). */
interface EndpointRecord {
  endpoint: WebhookEndpoint;
  secrets: EndpointSecrets;
  health: EndpointHealth;
}

/** A fresh copy without absent optional fields, as durable adapters return endpoints. */
function copyEndpoint(endpoint: WebhookEndpoint): WebhookEndpoint {
  const { description, rateLimit, headers, filter, disabledReason, parkedDropped, eventTypes, ...rest } = endpoint;
  return {
    ...rest,
    eventTypes: [...eventTypes],
    ...(description !== undefined ? { description } : {}),
    ...(rateLimit !== undefined ? { rateLimit } : {}),
    ...(headers !== undefined ? { headers: { ...headers } } : {}),
    ...(filter !== undefined ? { filter: parseFilter(filterText(filter)) } : {}),
    ...(disabledReason !== undefined && rest.status === 'disabled' ? { disabledReason } : {}),
    ...(parkedDropped ? { parkedDropped } : {}),
  };
}

/** The endpoint after `changes` (null removes; enabling clears the reason). */
function applyChanges(endpoint: WebhookEndpoint, changes: WebhookEndpointChanges): WebhookEndpoint {
  const next: Record<string, unknown> = { ...endpoint, updatedAt: changes.updatedAt };
  for (const key of ['url', 'eventTypes', 'description', 'rateLimit', 'headers', 'ordering', 'filter', 'status', 'disabledReason'] as const) {
    const value = changes[key];
    if (value === null) delete next[key];
    else if (value !== undefined) next[key] = value;
  }
  if (next['status'] === 'enabled') delete next['disabledReason'];
  return copyEndpoint(next as unknown as WebhookEndpoint);
}

const REPLAY_ALL: ParkedChoice = { action: 'replay' };

/** Tenants' webhook endpoints in process memory. */
export class MemoryWebhookEndpoints implements WebhookEndpointRepository {
  readonly #records = new Map<string, EndpointRecord>();
  readonly #outbox: MemoryWebhookOutbox;
  readonly #lifecycle: MemoryLifecycle;

  constructor(outbox: MemoryWebhookOutbox, lifecycle: MemoryLifecycle) {
    this.#outbox = outbox;
    this.#lifecycle = lifecycle;
  }

  /** The tenant's endpoints subscribed to `eventType` whose filter, if any, matches the event (the plant write queues one delivery each, parked for a disabled one). */
  matching(tenant: string, eventType: WebhookEventType, payload: string): WebhookEndpoint[] {
    const matching: WebhookEndpoint[] = [];
    let event: FilterEvent | undefined;
    for (const { endpoint } of this.#records.values()) {
      if (endpoint.tenant !== tenant || !endpoint.eventTypes.includes(eventType)) continue;
      if (endpoint.filter && !matchesFilter(endpoint.filter, (event ??= filterEvent(eventType, tenant, payload)))) continue;
      matching.push(endpoint);
    }
    return matching;
  }

  async create(input: NewWebhookEndpoint, maxPerTenant: number): Promise<WebhookEndpoint | undefined> {
    assertOpen(this.#lifecycle);
    if (this.#records.has(input.id)) throw new StorageError(`cannot create endpoint ${input.id}: an endpoint with that id exists`);
    if ([...this.#records.values()].filter(({ endpoint }) => endpoint.tenant === input.tenant).length >= maxPerTenant) return undefined;
    const { secret, createdAt, ordering = 'none', ...fields } = input;
    const endpoint = copyEndpoint({ ...fields, ordering, status: 'enabled', createdAt, updatedAt: createdAt });
    this.#records.set(input.id, { endpoint, secrets: { current: secret }, health: {} });
    return copyEndpoint(endpoint);
  }

  async get(tenant: string, id: string): Promise<WebhookEndpoint | undefined> {
    const record = this.#owned(tenant, id);
    return record && copyEndpoint(record.endpoint);
  }

  async list(tenant: string, query: ListEndpointsQuery): Promise<WebhookEndpoint[]> {
    return this.#page(query, (endpoint) => endpoint.tenant === tenant);
  }

  async update(tenant: string, id: string, changes: WebhookEndpointChanges): Promise<WebhookEndpoint | undefined> {
    const record = this.#owned(tenant, id);
    if (!record) return undefined;
    const wasEnabled = record.endpoint.status === 'enabled';
    record.endpoint = applyChanges(record.endpoint, changes);
    const at = changes.updatedAt;
    if (record.endpoint.status === 'disabled') {
      // A new time off counts its drops afresh.
      if (wasEnabled) record.endpoint = { ...record.endpoint, parkedDropped: 0 };
      this.addDropped(id, this.#outbox.parkPending(id, at));
    } else if (!wasEnabled) this.#outbox.unpark(id, changes.parked ?? REPLAY_ALL, at);
    return copyEndpoint(record.endpoint);
  }

  /** Counts parked messages of the endpoint that the bound dropped. */
  addDropped(id: string, count: number): void {
    const record = this.#records.get(id);
    if (record && count > 0) record.endpoint = { ...record.endpoint, parkedDropped: (record.endpoint.parkedDropped ?? 0) + count };
  }

  async delete(tenant: string, id: string, at: number): Promise<boolean> {
    if (!this.#owned(tenant, id)) return false;
    this.#records.delete(id);
    this.#outbox.endLines(id, at, ENDPOINT_DELETED_ERROR);
    return true;
  }

  async secrets(tenant: string, id: string): Promise<EndpointSecrets | undefined> {
    const record = this.#owned(tenant, id);
    return record && { ...record.secrets };
  }

  async rotateSecret(tenant: string, id: string, secret: string, previousExpiresAt: number, at: number): Promise<boolean> {
    const record = this.#owned(tenant, id);
    if (!record) return false;
    record.secrets = { current: secret, previous: record.secrets.current, previousExpiresAt };
    record.endpoint = { ...record.endpoint, updatedAt: at };
    return true;
  }

  async find(id: string): Promise<EndpointWithSecrets | undefined> {
    assertOpen(this.#lifecycle);
    const record = this.#records.get(id);
    return record && { endpoint: copyEndpoint(record.endpoint), secrets: { ...record.secrets }, health: { ...record.health } };
  }

  async listAll(query: ListEndpointsQuery): Promise<WebhookEndpoint[]> {
    return this.#page(query, () => true);
  }

  async setStatus(
    id: string,
    status: WebhookEndpointStatus,
    reason: string | undefined,
    at: number,
    parked?: ParkedChoice,
  ): Promise<WebhookEndpoint | undefined> {
    assertOpen(this.#lifecycle);
    const record = this.#records.get(id);
    if (!record) return undefined;
    return this.update(record.endpoint.tenant, id, { status, disabledReason: reason ?? null, updatedAt: at, ...(parked && { parked }) });
  }

  async noteAttempt(id: string, note: EndpointAttemptNote): Promise<EndpointHealth | undefined> {
    assertOpen(this.#lifecycle);
    const record = this.#records.get(id);
    if (!record) return undefined;
    if (note.succeeded) record.health = {};
    else {
      const failingSince = record.health.failingSince ?? note.at;
      const exhaustedAt = record.health.exhaustedAt ?? (note.exhausted ? note.at : undefined);
      record.health = exhaustedAt === undefined ? { failingSince } : { failingSince, exhaustedAt };
    }
    return { ...record.health };
  }

  #owned(tenant: string, id: string): EndpointRecord | undefined {
    assertOpen(this.#lifecycle);
    const record = this.#records.get(id);
    return record?.endpoint.tenant === tenant ? record : undefined;
  }

  #page(query: ListEndpointsQuery, wanted: (endpoint: WebhookEndpoint) => boolean): WebhookEndpoint[] {
    assertOpen(this.#lifecycle);
    return [...this.#records.values()]
      .map((record) => record.endpoint)
      .filter((endpoint) => wanted(endpoint) && (query.after === undefined || endpoint.id > query.after))
      .sort((a, b) => (a.id < b.id ? -1 : 1))
      .slice(0, Math.max(0, query.limit))
      .map(copyEndpoint);
  }
}
