import type { HttpTransport } from './http-transport.js';
import { fetchPage, followPages } from './paged-list.js';
import {
  deliveryFromJson,
  endpointFromJson,
  endpointStatsFromJson,
  endpointWithSecretFromJson,
  eventTypesFromJson,
  filterCheckFromJson,
  requeuedFromJson,
  secretFromJson,
  sessionFromJson,
  type ListWebhookDeliveriesQuery,
  type ListWebhookEndpointsQuery,
  type WebhookDeliveriesClient,
  type WebhookEndpointsClient,
  type WebhooksClient,
} from './webhook-types.js';

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
    update: (id, changes, options) => {
      const body = changes.parkedSince === undefined ? changes : { ...changes, parkedSince: timeParam(changes.parkedSince) };
      return transport.sendForJson('PATCH', url(id), endpointFromJson, { ...options, body });
    },
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
    checkFilter: (filter, options) =>
      transport.sendForJson('POST', transport.url('/webhooks/filter-check'), filterCheckFromJson, { ...options, body: { filter } }),
  };
}
