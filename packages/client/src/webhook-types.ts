// The webhooks API as the client offers it: its shapes (times are `Date`s, plant ids in payloads `bigint`), operations and readers.

import type { CallOptions } from './http-transport.js';
import { plantFromJson, type Plant } from './plant.js';
import { idFromJson } from './plant-id.js';

/** Events an endpoint can subscribe to. */
export type WebhookEventType = 'plant.created' | 'plant.deleted' | 'webhook.endpoint.disabled' | 'webhook.delivery.failed';

/** Body of a `plant.deleted` event. */
export interface PlantDeletedPayload {
  readonly id: bigint;
}

/** Body of a `webhook.endpoint.disabled` event: another endpoint of the tenant was disabled automatically. */
export interface EndpointDisabledPayload {
  /** Only in deliveries to operator subscriptions. */
  readonly tenant?: string;
  readonly endpointId: string;
  readonly reason: string;
  readonly at: Date;
  /** How to enable it again, replaying or discarding the events kept (parked) for it meanwhile; absent from older services' events. */
  readonly enable?: string;
}

/** Body of a `webhook.delivery.failed` event: a delivery to another endpoint of the tenant ran out of retries. */
export interface DeliveryFailedPayload {
  /** Only in deliveries to operator subscriptions. */
  readonly tenant?: string;
  readonly deliveryId: string;
  readonly endpointId: string;
  readonly eventType: WebhookEventType;
  readonly attempts: number;
  readonly lastError: string;
  /** When its last attempt ended. */
  readonly at: Date;
}

/** What a webhook carries: the plant for `plant.created`, `{ id }` for `plant.deleted`, the event for the operational types. */
export type WebhookPayload = Plant | PlantDeletedPayload | EndpointDisabledPayload | DeliveryFailedPayload;

export type WebhookEndpointStatus = 'enabled' | 'disabled';

/**
 * `'plant'`: the messages about one plant reach the endpoint in the order they were queued (a later one waits, without
 * `nextAttemptAt`, while an earlier one is pending, retries included); other plants are not held back.
 */
export type WebhookEndpointOrdering = 'none' | 'plant';

/**
 * Where an endpoint's messages go, by its URL's scheme: `http` (`http:`, `https:`), `amqp` (RabbitMQ, `amqp(s):`), `nats`
 * (NATS JetStream), `redis` (Redis Streams, `redis(s):`) or `mqtt` (MQTT 5, `mqtt(s):`). Broker kinds only where the operator allows them.
 */
export type WebhookDestinationKind = 'http' | 'amqp' | 'nats' | 'redis' | 'mqtt';

/**
 * A MongoDB-style query over the event `{type, tenant, data}` (`data` is the body), e.g. `{ 'data.tag': { $in: ['indoor', 'rare'] } }`:
 * field paths or `$and`/`$or`; on a field a value or `$eq`, `$ne`, `$gt`, `$gte`, `$lt`, `$lte`, `$in`, `$nin`, `$exists`, `$not`.
 * An array field matches when it contains the value. Other operators are refused (a `ValidationError` naming the path).
 */
export type WebhookEndpointFilter = Readonly<Record<string, unknown>>;

/** `webhooks.checkFilter()`: for each event type of the catalogue, whether the filter matches its example. */
export interface WebhookFilterCheck {
  readonly results: readonly { readonly eventType: WebhookEventType; readonly matches: boolean }[];
}

export interface WebhookEndpoint {
  /** `ep_…` */
  readonly id: string;
  /** A broker URL's credentials come back as `***` (`amqp://***@rabbit.example:5672/?exchange=plants`); sending it back unchanged in an update keeps them. */
  readonly url: string;
  /** Follows the `url`'s scheme. */
  readonly kind: WebhookDestinationKind;
  readonly eventTypes: WebhookEventType[];
  readonly description?: string;
  /** Deliveries per second to this endpoint (throttled, never dropped). */
  readonly rateLimit?: number;
  /** Request headers sent on every attempt to it; absent when none. */
  readonly headers?: Readonly<Record<string, string>>;
  readonly ordering: WebhookEndpointOrdering;
  /** Only events that match it are sent to the endpoint; absent when it has none. */
  readonly filter?: WebhookEndpointFilter;
  readonly status: WebhookEndpointStatus;
  /** Why the service disabled it (e.g. every attempt failed for days). */
  readonly disabledReason?: string;
  /**
   * How many messages kept for it while disabled (`parked`) were dropped, the oldest first, because more were kept than the
   * service's bound allows, since it was last disabled; absent when none.
   */
  readonly parkedDropped?: number;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/** An endpoint as returned by create: with what its receiver verifies with. */
export interface WebhookEndpointWithSecret extends WebhookEndpoint {
  /** `whsec_…` (HMAC) or `whpk_…` (the public key of an Ed25519 endpoint): give it to `verifyWebhook` in the receiver. */
  readonly secret: string;
}

export interface NewWebhookEndpoint {
  /**
   * Absolute http(s) URL without credentials, at most 2048 characters; where the operator allows it, a broker URL, which may carry
   * credentials: `amqp(s)://user:pass@host:5672/vhost?exchange=x&routingKey=k`, `nats://host:4222/subject`,
   * `redis(s)://host:6379/0?stream=s`, `mqtt(s)://host:1883/topic`.
   */
  readonly url: string;
  /** @default ['plant.created'] */
  readonly eventTypes?: readonly WebhookEventType[];
  readonly description?: string;
  /** `whsec_<base64>`, for `hmac` only. @default a new secret of 32 random bytes */
  readonly secret?: string;
  /** Deliveries per second. @default no limit */
  readonly rateLimit?: number;
  /** Request headers sent on every attempt (at most 20; not the ones the service sets, nor connection or framing ones such as `trailer` or `proxy-*`). @default none */
  readonly headers?: Readonly<Record<string, string>>;
  /** @default 'none' */
  readonly ordering?: WebhookEndpointOrdering;
  /** `'ed25519'`: the service keeps the secret key and answers with the `whpk_` public key (`v1a` signatures). @default 'hmac' */
  readonly signature?: 'hmac' | 'ed25519';
  /** Send only the events that match it (at most 4 KiB). @default none: every event it subscribes to */
  readonly filter?: WebhookEndpointFilter;
}

export interface WebhookEndpointUpdate {
  /** As on create; the masked URL an endpoint came back with (`***` for its credentials), sent back unchanged, keeps the stored credentials. */
  readonly url?: string;
  readonly eventTypes?: readonly WebhookEventType[];
  readonly description?: string;
  readonly rateLimit?: number;
  /** Replaces every header; `null` or `{}` removes them. */
  readonly headers?: Readonly<Record<string, string>> | null;
  /** Messages already queued keep the line they joined. */
  readonly ordering?: WebhookEndpointOrdering;
  /**
   * `'disabled'` keeps (parks) its messages until it is enabled again; `'enabled'` turns a disabled endpoint back on and replays them
   * (then `recover` resends what failed).
   */
  readonly status?: WebhookEndpointStatus;
  /** Replaces the filter; `null` removes it. */
  readonly filter?: WebhookEndpointFilter | null;
  /**
   * Only with `status: 'enabled'`: what enabling a disabled endpoint does with the messages parked for it: `'replay'` queues them again,
   * in order; `'discard'` ends them failed (`recover` can still resend them). @default 'replay'
   */
  readonly parked?: 'replay' | 'discard';
  /** Only with `status: 'enabled'`, not with `parked: 'discard'`: replay only the parked messages created at or after this time (a `Date`, or RFC 3339 text); the older are discarded. */
  readonly parkedSince?: Date | string;
}

/** `parked`: kept for its endpoint while that is disabled; never attempted until the endpoint is enabled (which replays or discards it). */
export type WebhookDeliveryStatus = 'pending' | 'delivered' | 'failed' | 'parked';

/** One attempt to deliver a message. */
export interface WebhookAttempt {
  readonly at: Date;
  readonly durationMs: number;
  /** The receiver's status, when it answered. */
  readonly statusCode?: number;
  /** What went wrong without a status (timeout, connection refused, `destination not allowed`, `parked message discarded`, …). */
  readonly error?: string;
  /** The start of the receiver's answer body (its first 1 KiB), when it sent one. */
  readonly response?: string;
}

/** A message to one endpoint, with its attempts. */
export interface WebhookDelivery {
  /** `msg_…`: also the `webhook-id` the receiver sees. */
  readonly id: string;
  readonly endpointId: string;
  readonly eventType: WebhookEventType;
  readonly payload: WebhookPayload;
  readonly status: WebhookDeliveryStatus;
  readonly attempts: WebhookAttempt[];
  /** Only while pending, and not while it waits behind an earlier message about the same plant. */
  readonly nextAttemptAt?: Date;
  /** While it waits behind an earlier message about the same plant: the id of the pending message just before it, the one it waits for. */
  readonly waitingBehind?: string;
  readonly createdAt: Date;
  /** `true` for a delivery queued by `endpoints.sendTest`; absent otherwise. */
  readonly test?: true;
}

/** Which endpoints to list (newest ids are not implied: the service's keyset order). */
export interface ListWebhookEndpointsQuery {
  /** Page size; `list()` follows the pages. */
  readonly limit?: number;
  /** Only endpoints after this id (keyset pagination). */
  readonly after?: string;
}

/** Which deliveries to list, newest first. */
export interface ListWebhookDeliveriesQuery {
  /** Only deliveries to this endpoint (`ep_…`). */
  readonly endpoint?: string;
  readonly status?: WebhookDeliveryStatus;
  readonly eventType?: WebhookEventType;
  /** Only deliveries created at or after this time (a `Date`, or RFC 3339 text). */
  readonly since?: Date | string;
  /** Only deliveries created before this time (a `Date`, or RFC 3339 text). */
  readonly until?: Date | string;
  /** Page size; `list()` follows the pages. */
  readonly limit?: number;
  /** Only deliveries after this one in the listing order (keyset pagination). */
  readonly after?: string;
}

/** What a token may do: `webhooks.session()`. */
export interface WebhookSession {
  readonly tenant: string;
  /** Who signed in: `portal-link:<link id>` for a portal link. */
  readonly subject: string;
  /** `plants:read`, `plants:write`, `webhooks:read`, `webhooks:write`. */
  readonly scopes: string[];
  /** When the token stops working; only for portal links. */
  readonly expiresAt?: Date;
}

/** One entry of the event catalogue: `webhooks.eventTypes()`. */
export interface WebhookEventTypeInfo {
  readonly type: WebhookEventType;
  readonly description: string;
  /** JSON Schema (2020-12) of the body sent for this type, self-contained. */
  readonly schema: Record<string, unknown>;
  /** An example body, ids as `bigint`; "send a test event" sends it. */
  readonly example: WebhookPayload;
}

/** Attempts in one window of `endpoints.stats()`. */
export interface WebhookWindowStats {
  readonly succeeded: number;
  readonly failed: number;
  /** `succeeded / (succeeded + failed)`; `null` when no attempt was made. */
  readonly successRate: number | null;
}

/** Attempts in one clock hour of `endpoints.stats()`. */
export interface WebhookHourStats {
  /** Start of the hour (a whole UTC hour). */
  readonly start: Date;
  readonly succeeded: number;
  readonly failed: number;
}

/** An endpoint's health: attempts over the last hour, day and week, hour by hour over the last day, and its last attempt (within the week). */
export interface WebhookEndpointStats {
  readonly endpointId: string;
  readonly lastAttempt?: { readonly at: Date; readonly statusCode?: number };
  readonly windows: { readonly '1h': WebhookWindowStats; readonly '24h': WebhookWindowStats; readonly '7d': WebhookWindowStats };
  /** The last 24 clock hours, oldest first; the last one is the current hour so far. */
  readonly hourly: readonly WebhookHourStats[];
}

/** One page of endpoints; `next` is the query of the following page, absent on the last one. */
export interface WebhookEndpointPage {
  readonly endpoints: WebhookEndpoint[];
  readonly next?: ListWebhookEndpointsQuery;
}

/** One page of deliveries; `next` is the query of the following page, absent on the last one. */
export interface WebhookDeliveryPage {
  readonly deliveries: WebhookDelivery[];
  readonly next?: ListWebhookDeliveriesQuery;
}

/** `client.webhooks.endpoints`: the tenant's own webhook endpoints (scopes `webhooks:read`, `webhooks:write`). */
export interface WebhookEndpointsClient {
  /** Creates an endpoint; the result holds its `secret` (the only read that does besides `getSecret`). */
  create(endpoint: NewWebhookEndpoint, options?: CallOptions): Promise<WebhookEndpointWithSecret>;
  /** Every endpoint, following `Link` pages of `limit`. */
  list(query?: ListWebhookEndpointsQuery & CallOptions): AsyncGenerator<WebhookEndpoint, void, undefined>;
  listPage(query?: ListWebhookEndpointsQuery & CallOptions): Promise<WebhookEndpointPage>;
  /** The endpoint (without its secret); `NotFoundError` for an id of another tenant too. */
  get(id: string, options?: CallOptions): Promise<WebhookEndpoint>;
  update(id: string, changes: WebhookEndpointUpdate, options?: CallOptions): Promise<WebhookEndpoint>;
  /** Deletes it; its pending deliveries end as failed (`endpoint deleted`). */
  delete(id: string, options?: CallOptions): Promise<void>;
  getSecret(id: string, options?: CallOptions): Promise<string>;
  /** Replaces the secret (with `secret` when given) and returns the new one; the old one still signs for the overlap period. */
  rotateSecret(id: string, body?: { readonly secret?: string }, options?: CallOptions): Promise<string>;
  /** Queues again every failed delivery to it created at or after `since`; returns how many. */
  recover(id: string, since: Date | string, options?: CallOptions): Promise<number>;
  /** Attempts succeeded and failed over the last hour, day and week, and the last attempt. */
  stats(id: string, options?: CallOptions): Promise<WebhookEndpointStats>;
  /** Queues the example body of `eventType` to this endpoint only (signed like any delivery, marked `test`); returns the delivery. `ConflictError` when its filter does not match the example. */
  sendTest(id: string, eventType: WebhookEventType, options?: CallOptions): Promise<WebhookDelivery>;
}

/** `client.webhooks.deliveries`: messages to the tenant's endpoints, newest first. */
export interface WebhookDeliveriesClient {
  list(query?: ListWebhookDeliveriesQuery & CallOptions): AsyncGenerator<WebhookDelivery, void, undefined>;
  listPage(query?: ListWebhookDeliveriesQuery & CallOptions): Promise<WebhookDeliveryPage>;
  get(id: string, options?: CallOptions): Promise<WebhookDelivery>;
  /** Queues it again whatever its state, with the same `webhook-id`. */
  resend(id: string, options?: CallOptions): Promise<void>;
}

export interface WebhooksClient {
  readonly endpoints: WebhookEndpointsClient;
  readonly deliveries: WebhookDeliveriesClient;
  /** Who the client's token signs in as, and what it may do (any valid token; no scope needed). */
  session(options?: CallOptions): Promise<WebhookSession>;
  /** The event types an endpoint can subscribe to, each with its JSON Schema and an example body. */
  eventTypes(options?: CallOptions): Promise<WebhookEventTypeInfo[]>;
  /** Whether `filter` matches the example of each event type (nothing is stored); `ValidationError` naming the path for a filter an endpoint would refuse. */
  checkFilter(filter: WebhookEndpointFilter, options?: CallOptions): Promise<WebhookFilterCheck>;
}

// Readers from parsed JSON: undefined when a promised field is missing or of the wrong kind; unknown fields pass
// through, so a service that adds one does not break older clients.

type Json = Record<string, unknown>;
type Reader<T = unknown> = (value: unknown) => T | undefined;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const string: Reader<string> = (value) => (typeof value === 'string' ? value : undefined);
const number: Reader<number> = (value) => (typeof value === 'number' ? value : undefined);
const boolean: Reader<boolean> = (value) => (typeof value === 'boolean' ? value : undefined);
const array: Reader<unknown[]> = (value) => (Array.isArray(value) ? value : undefined);

/** An RFC 3339 time (or epoch milliseconds) as a Date. */
function date(value: unknown): Date | undefined {
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  const parsed = new Date(value);
  return Number.isNaN(parsed.getTime()) ? undefined : parsed;
}

/** An array whose every element `read` accepts. */
function listOf<T>(read: Reader<T>): Reader<T[]> {
  return (value) => {
    const items = Array.isArray(value) ? value.map(read) : [undefined];
    return items.includes(undefined) ? undefined : (items as T[]);
  };
}

/** An object whose fields each pass their reader and are replaced by what it read; a `name?` field may be absent or null (then left out). */
function shaped<T>(fields: Readonly<Record<string, Reader>>): Reader<T> {
  return (value) => {
    if (!isObject(value)) return undefined;
    const result: Json = { ...value };
    for (const [key, read] of Object.entries(fields)) {
      const name = key.replace(/\?$/, '');
      if (name !== key && value[name] == null) {
        delete result[name];
        continue;
      }
      result[name] = read(value[name]);
      if (result[name] === undefined) return undefined;
    }
    return result as T;
  };
}

/** A webhook body: the plant of `plant.created`, `{ id }` of `plant.deleted`, or an operational event (its `at` a Date). */
export function payloadFromJson(value: unknown): WebhookPayload | undefined {
  if (!isObject(value)) return undefined;
  if ('name' in value) return plantFromJson(value);
  if (typeof value['endpointId'] === 'string') return shaped<WebhookPayload>({ at: date })(value);
  return shaped<PlantDeletedPayload>({ id: idFromJson })(value);
}

const ENDPOINT_FIELDS = {
  id: string,
  url: string,
  status: string,
  eventTypes: array,
  createdAt: date,
  updatedAt: date,
  // Older services send none: they keep no order.
  ordering: (value: unknown) => (value === undefined ? 'none' : string(value)),
  // Older services send none: they deliver over HTTP only.
  kind: (value: unknown) => (value === undefined ? 'http' : string(value)),
  'parkedDropped?': number,
};
const attemptFromJson = shaped<WebhookAttempt>({ at: date, durationMs: number });
const hourFromJson = shaped<WebhookHourStats>({ start: date, succeeded: number, failed: number });
const windowFromJson = shaped<WebhookWindowStats>({ succeeded: number, failed: number });

export const endpointFromJson = shaped<WebhookEndpoint>(ENDPOINT_FIELDS);
export const endpointWithSecretFromJson = shaped<WebhookEndpointWithSecret>({ ...ENDPOINT_FIELDS, secret: string });
export const sessionFromJson = shaped<WebhookSession>({ tenant: string, subject: string, scopes: array, 'expiresAt?': date });
export const secretFromJson = (value: unknown) => (isObject(value) ? string(value['secret']) : undefined);
export const requeuedFromJson = (value: unknown) => (isObject(value) ? number(value['requeued']) : undefined);
export const filterCheckFromJson = shaped<WebhookFilterCheck>({
  results: listOf(shaped({ eventType: string, matches: boolean })),
});
export const eventTypesFromJson = listOf(shaped<WebhookEventTypeInfo>({ type: string, description: string, schema: shaped({}), example: payloadFromJson }));

export const deliveryFromJson = shaped<WebhookDelivery>({
  id: string,
  endpointId: string,
  eventType: string,
  status: string,
  payload: payloadFromJson,
  attempts: listOf(attemptFromJson),
  createdAt: date,
  'nextAttemptAt?': date,
  'waitingBehind?': string,
});

export const endpointStatsFromJson = shaped<WebhookEndpointStats>({
  endpointId: string,
  windows: shaped({ '1h': windowFromJson, '24h': windowFromJson, '7d': windowFromJson }),
  // Older services send no hours.
  hourly: (value) => (Array.isArray(value) ? listOf(hourFromJson)(value) : []),
  'lastAttempt?': shaped({ at: date }),
});
