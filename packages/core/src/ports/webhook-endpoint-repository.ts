import type { EndpointFilter } from '../webhooks/endpoints/endpoint-filter.js';
import type { EndpointOrdering, ParkedChoice, WebhookEndpoint, WebhookEndpointStatus, WebhookEventType } from '../webhooks/endpoints/webhook-endpoint.js';

/** A new endpoint, with its first signing secret. */
export interface NewWebhookEndpoint {
  readonly id: string;
  readonly tenant: string;
  readonly url: string;
  readonly eventTypes: readonly WebhookEventType[];
  readonly description?: string;
  readonly rateLimit?: number;
  /** At least one header when present. */
  readonly headers?: Readonly<Record<string, string>>;
  /** @default 'none' */
  readonly ordering?: EndpointOrdering;
  /** Queue only the events that match it (see `matchesFilter`). @default none: every event */
  readonly filter?: EndpointFilter;
  /** `whsec_` secret (HMAC) or `whsk_` secret key (Ed25519). */
  readonly secret: string;
  /** Epoch ms; also its first `updatedAt`. New endpoints are enabled. */
  readonly createdAt: number;
}

/** What an update changes; absent fields stay, `null` removes an optional one. */
export interface WebhookEndpointChanges {
  readonly url?: string;
  readonly eventTypes?: readonly WebhookEventType[];
  readonly description?: string | null;
  readonly rateLimit?: number | null;
  /** At least one header when an object. */
  readonly headers?: Readonly<Record<string, string>> | null;
  /** Deliveries already queued keep the line they joined: switching to `none` holds none back for good, since each held one is released when the one before it ends. */
  readonly ordering?: EndpointOrdering;
  /** Events queued after the change are matched against the new filter; `null` removes it. */
  readonly filter?: EndpointFilter | null;
  readonly status?: WebhookEndpointStatus;
  /** Kept only while disabled: enabling clears it whatever is given. */
  readonly disabledReason?: string | null;
  /** What enabling a disabled endpoint does with the messages parked for it (see `setStatus`); ignored otherwise. @default replay all */
  readonly parked?: ParkedChoice;
  readonly updatedAt: number;
}

/** An endpoint's signing secrets (`whsec_` or `whsk_`, one kind per endpoint): the current one, and the previous one while a rotation's overlap lasts. */
export interface EndpointSecrets {
  readonly current: string;
  readonly previous?: string;
  /** When `previous` stops being used (epoch ms); set together with `previous`. */
  readonly previousExpiresAt?: number;
}

export interface EndpointWithSecrets {
  readonly endpoint: WebhookEndpoint;
  readonly secrets: EndpointSecrets;
  /**
   * The endpoint's health as of this read (what `noteAttempt` last left). A dispatcher that keeps the endpoint skips noting a
   * success while the health it knows has no failing streak, so a storage that reports it must also announce, through `watch`
   * when it has one, every `noteAttempt` that starts a streak. @default not reported: every attempt is noted
   */
  readonly health?: EndpointHealth;
}

export interface ListEndpointsQuery {
  /** Only ids greater than this (binary string order). @default no lower bound */
  readonly after?: string;
  /** At least 1. */
  readonly limit: number;
}

export interface EndpointAttemptNote {
  readonly at: number;
  /** The receiver took the message. */
  readonly succeeded: boolean;
  /** The attempt failed and its message gets no more attempts (retries exhausted, or gone). */
  readonly exhausted: boolean;
}

/** How an endpoint has been doing since its last successful attempt (what auto-disable decides on). */
export interface EndpointHealth {
  /** First failed attempt since the last success; absent when the last attempt succeeded (or none was made). */
  readonly failingSince?: number;
  /** First message exhausted since `failingSince`; absent when none. */
  readonly exhaustedAt?: number;
}

/**
 * Tenants' webhook endpoints, stored beside the outbox so that a plant write selects its deliveries from them in its transaction. Tenant
 * members see only that tenant's endpoints (another tenant's id is `undefined`/`false`, like a missing one); operator members reach any.
 * Members reject with a `StorageError` only when storage itself fails.
 */
export interface WebhookEndpointRepository {
  /**
   * Stores a new, enabled endpoint and returns it, or `undefined` (writing nothing) when the tenant already has `maxPerTenant` endpoints
   * (enabled or not); count and insert are atomic across processes, so concurrent creates never pass the cap. `StorageError` when the id exists.
   */
  create(endpoint: NewWebhookEndpoint, maxPerTenant: number): Promise<WebhookEndpoint | undefined>;
  /** The tenant's endpoint with that id, or `undefined`. */
  get(tenant: string, id: string): Promise<WebhookEndpoint | undefined>;
  /** Up to `limit` of the tenant's endpoints after the cursor, ascending id; `[]` when none. */
  list(tenant: string, query: ListEndpointsQuery): Promise<WebhookEndpoint[]>;
  /** Applies the changes and returns the endpoint, or `undefined` when the tenant has none with that id. Disabling parks its deliveries and enabling replays or discards them, in the same transaction (see `setStatus`). */
  update(tenant: string, id: string, changes: WebhookEndpointChanges): Promise<WebhookEndpoint | undefined>;
  /**
   * Deletes the endpoint and, atomically, ends its pending and parked deliveries as failed with a last attempt `{at, durationMs: 0, error: 'endpoint deleted'}`
   * (one in flight, leased at `at`, is left to its attempt, whose next one ends it); `false` when the tenant has none.
   */
  delete(tenant: string, id: string, at: number): Promise<boolean>;
  /** The endpoint's secrets, or `undefined` when the tenant has none with that id. */
  secrets(tenant: string, id: string): Promise<EndpointSecrets | undefined>;
  /** Makes `secret` current and keeps the old current one as previous until `previousExpiresAt` (an older previous is dropped); `false` when the tenant has none. Atomic. */
  rotateSecret(tenant: string, id: string, secret: string, previousExpiresAt: number, at: number): Promise<boolean>;

  /** Operator: any tenant's endpoint with its secrets (the dispatcher resolves deliveries with it), or `undefined`. */
  find(id: string): Promise<EndpointWithSecrets | undefined>;
  /** Operator: up to `limit` endpoints of every tenant after the cursor, ascending id. */
  listAll(query: ListEndpointsQuery): Promise<WebhookEndpoint[]>;
  /**
   * Operator: sets any endpoint's status (`reason` kept while disabled, cleared when enabled) and returns it, or `undefined` when none.
   * In the same transaction:
   * - Disabling an enabled endpoint parks its pending deliveries (attempt logs kept, due time and place in line cleared, `orderingKey`
   *   kept) but one in flight (leased at `at`): it is left to its attempt, and a next attempt parks it, so a message is never sent twice at
   *   once. `parkedDropped` starts again from none, and the storage's bound applies (see below).
   * - While it is disabled, each plant write parks a delivery for it where it would have queued one; beyond the storage's bound of parked
   *   messages per endpoint (its `parkedLimit` option), the oldest (creation time, then insertion order) are deleted and counted in
   *   `parkedDropped`.
   * - Enabling a disabled endpoint applies `parked` (default: replay all): a replay makes the parked deliveries created at or after `since`
   *   (all without it) pending, due at `at`, in creation order, each of a line joining the back of it (as `WebhookOutbox.requeue`'s
   *   recovery); the others, and all of them on a discard, end failed with a last attempt `{at, durationMs: 0, error: 'parked message discarded'}`.
   */
  setStatus(id: string, status: WebhookEndpointStatus, reason: string | undefined, at: number, parked?: ParkedChoice): Promise<WebhookEndpoint | undefined>;
  /**
   * Operator: records what an attempt to the endpoint came to (a success clears its failing streak) and returns its health after it, or
   * `undefined` when the endpoint is gone. Atomic. A failure that starts a streak is announced through `watch` (see `EndpointWithSecrets.health`).
   */
  noteAttempt(id: string, note: EndpointAttemptNote): Promise<EndpointHealth | undefined>;
  /**
   * Optional: calls `listener` with an endpoint's id soon after another process or store on this storage changed or deleted it
   * (`update`, `setStatus`, `rotateSecret`, `delete`, and a `noteAttempt` that started a failing streak), and without one when changes
   * may have been missed (after a reconnect, say); what it throws is ignored. Returns an idempotent unsubscribe. Adapters without a
   * cross-process signal leave it out: a dispatcher then learns of another process's changes, and of its streaks, once it reads the
   * endpoint again.
   */
  watch?(listener: (id?: string) => void): () => void;
}
