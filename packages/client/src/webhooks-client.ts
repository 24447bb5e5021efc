import type { CallOptions, HttpTransport } from './http-transport.js';
import { fetchPage, followPages } from './paged-list.js';
import {
  deliveryFromJson,
  endpointFromJson,
  endpointStatsFromJson,
  endpointWithSecretFromJson,
  eventTypesFromJson,
  requeuedFromJson,
  secretFromJson,
  sessionFromJson,
  type ListWebhookDeliveriesQuery,
  type ListWebhookEndpointsQuery,
  type NewWebhookEndpoint,
  type WebhookDelivery,
  type WebhookEndpoint,
  type WebhookEndpointStats,
  type WebhookEndpointUpdate,
  type WebhookEndpointWithSecret,
  type WebhookEventType,
  type WebhookEventTypeInfo,
  type WebhookSession,
} from './webhook-types.js';

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
  /** Queues the example body of `eventType` to this endpoint only (signed like any delivery, marked `test`); returns the delivery. */
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
}

const ENDPOINTS = '/webhooks/endpoints';
const DELIVERIES = '/webhooks/deliveries';
const segment = (id: string) => `/${encodeURIComponent(id)}`;
const timeParam = (value: Date | string | undefined) => (value instanceof Date ? value.toISOString() : value);

/** The query of a next-page Link as the caller's query (the service always puts `after` in it). */
function nextQuery<Q>(params: URLSearchParams): Q | undefined {
  if (params.get('after') === null) return undefined;
  const limit = params.get('limit');
  return { ...Object.fromEntries(params), ...(limit === null ? {} : { limit: Number(limit) }) } as Q;
}

function endpointsClient(transport: HttpTransport): WebhookEndpointsClient {
  const url = (id?: string, action = '') => transport.url(ENDPOINTS + (id === undefined ? '' : segment(id)) + action);
  const listUrl = ({ limit, after }: ListWebhookEndpointsQuery) => transport.url(ENDPOINTS, { limit, after });
  return {
    create: (endpoint, options) => transport.sendForJson('POST', url(), endpointWithSecretFromJson, { ...options, body: endpoint }),
    list: (query = {}) => followPages(transport, listUrl(query), endpointFromJson, query.signal),
    listPage: (query = {}) => fetchPage(transport, listUrl(query), 'endpoints', endpointFromJson, nextQuery<ListWebhookEndpointsQuery>, query.signal),
    get: (id, options) => transport.sendForJson('GET', url(id), endpointFromJson, options),
    update: (id, changes, options) => transport.sendForJson('PATCH', url(id), endpointFromJson, { ...options, body: changes }),
    delete: (id, options) => transport.sendAndDiscard('DELETE', url(id), options),
    getSecret: (id, options) => transport.sendForJson('GET', url(id, '/secret'), secretFromJson, options),
    rotateSecret: (id, body = {}, options) => transport.sendForJson('POST', url(id, '/rotate-secret'), secretFromJson, { ...options, body }),
    recover: (id, since, options) => transport.sendForJson('POST', url(id, '/recover'), requeuedFromJson, { ...options, body: { since: timeParam(since) } }),
    stats: (id, options) => transport.sendForJson('GET', url(id, '/stats'), endpointStatsFromJson, options),
    sendTest: (id, eventType, options) => transport.sendForJson('POST', url(id, '/test'), deliveryFromJson, { ...options, body: { eventType } }),
  };
}

function deliveriesClient(transport: HttpTransport): WebhookDeliveriesClient {
  const listUrl = ({ endpoint, status, eventType, since, until, limit, after }: ListWebhookDeliveriesQuery) =>
    transport.url(DELIVERIES, { endpoint, status, eventType, since: timeParam(since), until: timeParam(until), limit, after });
  return {
    list: (query = {}) => followPages(transport, listUrl(query), deliveryFromJson, query.signal),
    listPage: (query = {}) => fetchPage(transport, listUrl(query), 'deliveries', deliveryFromJson, nextQuery<ListWebhookDeliveriesQuery>, query.signal),
    get: (id, options) => transport.sendForJson('GET', transport.url(DELIVERIES + segment(id)), deliveryFromJson, options),
    resend: (id, options) => transport.sendAndDiscard('POST', transport.url(`${DELIVERIES}${segment(id)}/resend`), options),
  };
}

export function webhooksClient(transport: HttpTransport): WebhooksClient {
  return {
    endpoints: endpointsClient(transport),
    deliveries: deliveriesClient(transport),
    session: (options) => transport.sendForJson('GET', transport.url('/webhooks/session'), sessionFromJson, options),
    eventTypes: (options) => transport.sendForJson('GET', transport.url('/webhooks/event-types'), eventTypesFromJson, options),
  };
}
