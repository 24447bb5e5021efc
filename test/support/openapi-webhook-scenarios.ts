import { DEFAULT_MAX_ENDPOINTS_PER_TENANT } from '@plant-store/core';
import type { ApiRequest, ApiResponse } from './api-client.js';
import { TOKENS } from './test-tokens.js';

/** One request of the OpenAPI suite and the status it must get. A path may be computed when the request is made (ids created by earlier scenarios). */
export interface Scenario {
  readonly method: string;
  readonly path: string | (() => string);
  readonly request?: ApiRequest;
  readonly fault?: 'none' | 'storage' | 'bug';
  readonly status: number;
  /** Reads what later scenarios need (e.g. a created id) from the response. */
  readonly after?: (response: ApiResponse) => void;
}

/** A well-formed portal link token that no storage knows. */
const UNKNOWN_PORTAL_LINK = `psl_${'A'.repeat(16)}_${'B'.repeat(43)}`;

const state = { endpoint: 'ep_unset', delivery: 'msg_unset' };

/** Makes sure a response carries `field` as `holds` wants it, so that the document is checked against it (an absent optional field checks nothing). */
const expectField = (field: string, holds: (value: unknown) => boolean) => (response: Pick<ApiResponse, 'json'>) => {
  const actual = (response.json as Record<string, unknown> | undefined)?.[field];
  if (!holds(actual)) throw new Error(`unexpected ${field}: ${JSON.stringify(actual)}`);
};
const owner = { token: TOKENS.owner };
const json = (value: unknown): ApiRequest => ({ ...owner, body: JSON.stringify(value) });
const huge = { ...owner, body: JSON.stringify({ description: 'x'.repeat(70_000) }) };
const textJson = { ...owner, body: '{}', headers: { 'content-type': 'text/json' } };

/**
 * The statuses a route with an id gives beyond success and its input
 * errors: a malformed id (400), no token (401), a token without the scope
 * (403), an unknown id (404), a bug (500) and a storage outage (503).
 */
function itemErrors(method: string, path: (id: string) => string, scope: 'read' | 'write', body?: string): Scenario[] {
  const request = (token?: string): ApiRequest => ({ token, body });
  const known = () => path(path('').startsWith('/webhooks/deliveries') ? state.delivery : state.endpoint);
  return [
    { method, path: () => path('%E2%82'), request: request(TOKENS.owner), status: 400 },
    { method, path: known, request: request(), status: 401 },
    { method, path: known, request: request(scope === 'write' ? TOKENS.webhookReader : TOKENS.reader), status: 403 },
    { method, path: () => path('id_nope'), request: request(TOKENS.owner), status: 404 },
    { method, path: known, request: request(TOKENS.owner), fault: 'bug', status: 500 },
    { method, path: known, request: request(TOKENS.owner), fault: 'storage', status: 503 },
  ];
}

/** The body errors of a JSON body: 413 and 415. */
function bodyErrors(method: string, path: () => string): Scenario[] {
  return [
    { method, path, request: huge, status: 413 },
    { method, path, request: textJson, status: 415 },
  ];
}

const endpoint = (id: string) => `/webhooks/endpoints/${id}`;
const delivery = (id: string) => `/webhooks/deliveries/${id}`;
const currentEndpoint = () => endpoint(state.endpoint);
const currentDelivery = () => delivery(state.delivery);

/** Every status of every webhooks operation, in an order where each finds what it needs. */
export const webhookScenarios: Scenario[] = [
  {
    method: 'POST',
    path: '/webhooks/endpoints',
    request: json({ url: 'https://example.com/doc', eventTypes: ['plant.created', 'plant.deleted'] }),
    status: 201,
    after: (response) => (state.endpoint = (response.json as { id: string }).id),
  },
  { method: 'POST', path: '/webhooks/endpoints', request: json({}), status: 400 },
  { method: 'POST', path: '/webhooks/endpoints', request: { body: '{}' }, status: 401 },
  { method: 'POST', path: '/webhooks/endpoints', request: { token: TOKENS.webhookReader, body: '{}' }, status: 403 },
  ...bodyErrors('POST', () => '/webhooks/endpoints'),
  { method: 'POST', path: '/webhooks/endpoints', request: json({ url: 'https://example.com/x' }), fault: 'bug', status: 500 },
  { method: 'POST', path: '/webhooks/endpoints', request: json({ url: 'https://example.com/x' }), fault: 'storage', status: 503 },
  // Tenant b fills its cap of endpoints (the default); one more is a 422.
  ...Array.from(
    { length: DEFAULT_MAX_ENDPOINTS_PER_TENANT + 1 },
    (_, index): Scenario => ({
      method: 'POST',
      path: '/webhooks/endpoints',
      request: { token: TOKENS.otherTenant, body: JSON.stringify({ url: `https://example.com/cap/${index}` }) },
      status: index < DEFAULT_MAX_ENDPOINTS_PER_TENANT ? 201 : 422,
    }),
  ),

  { method: 'GET', path: '/webhooks/endpoints', request: owner, status: 200 },
  { method: 'GET', path: '/webhooks/endpoints?limit=x', request: owner, status: 400 },
  { method: 'GET', path: '/webhooks/endpoints', status: 401 },
  { method: 'GET', path: '/webhooks/endpoints', request: { token: TOKENS.reader }, status: 403 },
  { method: 'GET', path: '/webhooks/endpoints', request: owner, fault: 'bug', status: 500 },
  { method: 'GET', path: '/webhooks/endpoints', request: owner, fault: 'storage', status: 503 },

  { method: 'GET', path: currentEndpoint, request: owner, status: 200 },
  ...itemErrors('GET', endpoint, 'read'),
  { method: 'PATCH', path: currentEndpoint, request: json({}), status: 200 },
  { method: 'PATCH', path: currentEndpoint, request: json({ status: 'paused' }), status: 400 },
  ...itemErrors('PATCH', endpoint, 'write', '{}'),
  ...bodyErrors('PATCH', currentEndpoint),
  { method: 'GET', path: () => `${currentEndpoint()}/secret`, request: owner, status: 200 },
  ...itemErrors('GET', (id) => `${endpoint(id)}/secret`, 'write'),
  { method: 'POST', path: () => `${currentEndpoint()}/rotate-secret`, request: owner, status: 200 },
  // An absent optional body, labelled JSON as generated clients do.
  { method: 'POST', path: () => `${currentEndpoint()}/rotate-secret`, request: { ...owner, body: '' }, status: 200 },
  { method: 'POST', path: () => `${currentEndpoint()}/rotate-secret`, request: json({ secret: 'x' }), status: 400 },
  ...itemErrors('POST', (id) => `${endpoint(id)}/rotate-secret`, 'write', '{}'),
  ...bodyErrors('POST', () => `${currentEndpoint()}/rotate-secret`),
  { method: 'POST', path: () => `${currentEndpoint()}/recover`, request: json({ since: '2020-01-01T00:00:00Z' }), status: 202 },
  { method: 'POST', path: () => `${currentEndpoint()}/recover`, request: json({}), status: 400 },
  ...itemErrors('POST', (id) => `${endpoint(id)}/recover`, 'write', '{"since":"2020-01-01T00:00:00Z"}'),
  ...bodyErrors('POST', () => `${currentEndpoint()}/recover`),
  { method: 'GET', path: () => `${currentEndpoint()}/stats`, request: owner, status: 200 },
  ...itemErrors('GET', (id) => `${endpoint(id)}/stats`, 'read'),
  { method: 'POST', path: () => `${currentEndpoint()}/test`, request: json({ eventType: 'plant.deleted' }), status: 202 },
  { method: 'POST', path: () => `${currentEndpoint()}/test`, request: json({ eventType: 'plant.updated' }), status: 400 },
  ...itemErrors('POST', (id) => `${endpoint(id)}/test`, 'write', '{"eventType":"plant.created"}'),
  ...bodyErrors('POST', () => `${currentEndpoint()}/test`),
  { method: 'PATCH', path: currentEndpoint, request: json({ status: 'disabled' }), status: 200 },
  { method: 'POST', path: () => `${currentEndpoint()}/test`, request: json({ eventType: 'plant.created' }), status: 409 },
  // Plants while it is disabled: their messages are parked for it, the older past the bound (the suite's server keeps 1) dropped.
  { method: 'POST', path: '/plants', request: { ...owner, body: '{"id":4998,"name":"parked"}' }, status: 200 },
  { method: 'POST', path: '/plants', request: { ...owner, body: '{"id":4999,"name":"parked"}' }, status: 200 },
  {
    method: 'GET',
    path: currentEndpoint,
    request: owner,
    status: 200,
    after: expectField('parkedDropped', (count) => typeof count === 'number' && count >= 1),
  },
  {
    method: 'GET',
    path: () => `/webhooks/deliveries?status=parked&endpoint=${state.endpoint}`,
    request: owner,
    status: 200,
    after: (response) => expectField('status', (status) => status === 'parked')({ json: (response.json as unknown[])[0] }),
  },
  { method: 'PATCH', path: currentEndpoint, request: json({ parked: 'replay' }), status: 400 },
  { method: 'PATCH', path: currentEndpoint, request: json({ status: 'enabled', parked: 'discard', parkedSince: '2020-01-01T00:00:00Z' }), status: 400 },
  { method: 'PATCH', path: currentEndpoint, request: json({ status: 'enabled', parked: 'replay', parkedSince: '2020-01-01T00:00:00Z' }), status: 200 },
  { method: 'PATCH', path: currentEndpoint, request: json({ status: 'disabled' }), status: 200 },
  { method: 'PATCH', path: currentEndpoint, request: json({ status: 'enabled', parked: 'discard' }), status: 200 },

  // A plant, so that the endpoint has a delivery.
  { method: 'POST', path: '/plants', request: { ...owner, body: '{"id":5000,"name":"hook"}' }, status: 200 },
  {
    method: 'GET',
    path: '/webhooks/deliveries',
    request: owner,
    status: 200,
    after: (response) => (state.delivery = (response.json as { id: string }[])[0]!.id),
  },
  { method: 'GET', path: '/webhooks/deliveries?status=lost', request: owner, status: 400 },
  { method: 'GET', path: '/webhooks/deliveries', status: 401 },
  { method: 'GET', path: '/webhooks/deliveries', request: { token: TOKENS.writer }, status: 403 },
  { method: 'GET', path: '/webhooks/deliveries', request: owner, fault: 'bug', status: 500 },
  { method: 'GET', path: '/webhooks/deliveries', request: owner, fault: 'storage', status: 503 },
  { method: 'GET', path: currentDelivery, request: owner, status: 200 },
  ...itemErrors('GET', delivery, 'read'),
  { method: 'POST', path: () => `${currentDelivery()}/resend`, request: owner, status: 202 },
  ...itemErrors('POST', (id) => `${delivery(id)}/resend`, 'write'),

  { method: 'DELETE', path: currentEndpoint, request: owner, status: 204 },
  ...itemErrors('DELETE', endpoint, 'write'),

  // Any token may ask who it is; a portal link token is looked up in storage (hence the 503).
  { method: 'GET', path: '/webhooks/session', request: { token: TOKENS.reader }, status: 200 },
  { method: 'GET', path: '/webhooks/session', status: 401 },
  { method: 'GET', path: '/webhooks/session', request: { token: UNKNOWN_PORTAL_LINK }, fault: 'storage', status: 503 },

  { method: 'GET', path: '/webhooks/event-types', request: { token: TOKENS.webhookReader }, status: 200 },
  { method: 'GET', path: '/webhooks/event-types', status: 401 },
  { method: 'GET', path: '/webhooks/event-types', request: { token: TOKENS.reader }, status: 403 },
  { method: 'GET', path: '/webhooks/event-types', request: { token: UNKNOWN_PORTAL_LINK }, fault: 'storage', status: 503 },

  { method: 'POST', path: '/webhooks/filter-check', request: { token: TOKENS.webhookReader, body: '{"filter":{"data.tag":"indoor"}}' }, status: 200 },
  { method: 'POST', path: '/webhooks/filter-check', request: json({ filter: { 'data.name': { $regex: '^M' } } }), status: 400 },
  { method: 'POST', path: '/webhooks/filter-check', request: { body: '{}' }, status: 401 },
  { method: 'POST', path: '/webhooks/filter-check', request: { token: TOKENS.reader, body: '{}' }, status: 403 },
  { method: 'POST', path: '/webhooks/filter-check', request: { token: UNKNOWN_PORTAL_LINK, body: '{}' }, fault: 'storage', status: 503 },
  ...bodyErrors('POST', () => '/webhooks/filter-check'),
];
