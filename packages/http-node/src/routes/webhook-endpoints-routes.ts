import type { Principal } from '@plant-store/core';
import { requireScope } from '@plant-store/core/adapter';
import { authenticateRequest } from '../http/authenticate-request.js';
import { nextLink } from '../http/next-link.js';
import { parseEndpointListQuery } from '../http/parse-webhook-list-query.js';
import { parsePathId } from '../http/parse-path-id.js';
import { readJsonBody, readOptionalJsonBody } from '../http/read-json-body.js';
import { sendJson, sendNoContent } from '../http/send-json.js';
import { deliveryJson, endpointJson, endpointStatsJson, endpointWithSecretJson, jsonArray } from '../http/webhook-json.js';
import type { Exchange, RouteContext } from './route-context.js';

// The tenant's own webhook endpoints. As for plants, every handler
// authenticates and checks the scope before it looks at the id, the query or
// the body; the core checks the scope again and answers 404 for an id of
// another tenant.

async function principalWith(context: RouteContext, exchange: Exchange, scope: 'webhooks:read' | 'webhooks:write'): Promise<Principal> {
  const principal = await authenticateRequest(context.store, exchange);
  requireScope(principal, scope);
  return principal;
}

/** `POST /webhooks/endpoints`: 201 with the endpoint and its secret. */
export async function createEndpoint(context: RouteContext, exchange: Exchange): Promise<void> {
  const principal = await principalWith(context, exchange, 'webhooks:write');
  const body = await readJsonBody(exchange.req, context.maxBodyBytes);
  const { endpoint, secret } = await context.store.webhooks.endpoints.create(principal, body);
  sendJson(exchange.res, exchange.requestId, 201, endpointWithSecretJson(endpoint, secret));
}

/** `GET /webhooks/endpoints`: one keyset page, ids ascending, `Link` when more remain. */
export async function listEndpoints(context: RouteContext, exchange: Exchange): Promise<void> {
  const principal = await principalWith(context, exchange, 'webhooks:read');
  const query = parseEndpointListQuery(exchange.query);
  const page = await context.store.webhooks.endpoints.list(principal, query);
  const params: [string, string | number][] = query.limit === undefined ? [] : [['limit', query.limit]];
  const link = page.nextAfter === undefined ? undefined : ['link', nextLink(context.basePath, '/webhooks/endpoints', [...params, ['after', page.nextAfter]])];
  sendJson(exchange.res, exchange.requestId, 200, jsonArray(page.endpoints.map(endpointJson)), link);
}

/** `GET /webhooks/endpoints/{id}`. */
export async function getEndpoint(context: RouteContext, exchange: Exchange, idSegment: string): Promise<void> {
  const principal = await principalWith(context, exchange, 'webhooks:read');
  const endpoint = await context.store.webhooks.endpoints.get(principal, parsePathId(idSegment));
  sendJson(exchange.res, exchange.requestId, 200, endpointJson(endpoint));
}

/** `PATCH /webhooks/endpoints/{id}`: 200 with the endpoint as updated. */
export async function updateEndpoint(context: RouteContext, exchange: Exchange, idSegment: string): Promise<void> {
  const principal = await principalWith(context, exchange, 'webhooks:write');
  const id = parsePathId(idSegment);
  const body = await readJsonBody(exchange.req, context.maxBodyBytes);
  const endpoint = await context.store.webhooks.endpoints.update(principal, id, body);
  sendJson(exchange.res, exchange.requestId, 200, endpointJson(endpoint));
}

/** `DELETE /webhooks/endpoints/{id}`: 204; its pending deliveries end as failed. */
export async function deleteEndpoint(context: RouteContext, exchange: Exchange, idSegment: string): Promise<void> {
  const principal = await principalWith(context, exchange, 'webhooks:write');
  await context.store.webhooks.endpoints.delete(principal, parsePathId(idSegment));
  sendNoContent(exchange.res, exchange.requestId);
}

/** `GET /webhooks/endpoints/{id}/secret`: `{secret}`; a write scope, since the secret lets one forge webhooks. */
export async function getEndpointSecret(context: RouteContext, exchange: Exchange, idSegment: string): Promise<void> {
  const principal = await principalWith(context, exchange, 'webhooks:write');
  const secret = await context.store.webhooks.endpoints.getSecret(principal, parsePathId(idSegment));
  sendJson(exchange.res, exchange.requestId, 200, JSON.stringify({ secret }));
}

/** `POST /webhooks/endpoints/{id}/rotate-secret` `{secret?}` (the body may be left out): `{secret}`, the new one. */
export async function rotateEndpointSecret(context: RouteContext, exchange: Exchange, idSegment: string): Promise<void> {
  const principal = await principalWith(context, exchange, 'webhooks:write');
  const id = parsePathId(idSegment);
  const body = await readOptionalJsonBody(exchange.req, context.maxBodyBytes);
  const secret = await context.store.webhooks.endpoints.rotateSecret(principal, id, body);
  sendJson(exchange.res, exchange.requestId, 200, JSON.stringify({ secret }));
}

/** `POST /webhooks/endpoints/{id}/recover` `{since}`: 202 `{requeued}`. */
export async function recoverEndpoint(context: RouteContext, exchange: Exchange, idSegment: string): Promise<void> {
  const principal = await principalWith(context, exchange, 'webhooks:write');
  const id = parsePathId(idSegment);
  const body = await readJsonBody(exchange.req, context.maxBodyBytes);
  const { requeued } = await context.store.webhooks.endpoints.recover(principal, id, body);
  sendJson(exchange.res, exchange.requestId, 202, JSON.stringify({ requeued }));
}

/** `GET /webhooks/endpoints/{id}/stats`: attempts succeeded and failed over 1 h, 24 h and 7 d, and the last attempt. */
export async function getEndpointStats(context: RouteContext, exchange: Exchange, idSegment: string): Promise<void> {
  const principal = await principalWith(context, exchange, 'webhooks:read');
  const stats = await context.store.webhooks.endpoints.stats(principal, parsePathId(idSegment));
  sendJson(exchange.res, exchange.requestId, 200, endpointStatsJson(stats));
}

/** `POST /webhooks/endpoints/{id}/test` `{eventType}`: 202 with the queued test delivery. */
export async function sendTestEvent(context: RouteContext, exchange: Exchange, idSegment: string): Promise<void> {
  const principal = await principalWith(context, exchange, 'webhooks:write');
  const id = parsePathId(idSegment);
  const body = await readJsonBody(exchange.req, context.maxBodyBytes);
  const delivery = await context.store.webhooks.endpoints.sendTest(principal, id, body);
  sendJson(exchange.res, exchange.requestId, 202, deliveryJson(delivery));
}
