import { requireScope } from '@plant-store/core/adapter';
import { authenticateRequest } from '../http/authenticate-request.js';
import { nextLink } from '../http/next-link.js';
import { parseDeliveryListQuery, type DeliveryListQuery } from '../http/parse-webhook-list-query.js';
import { parsePathId } from '../http/parse-path-id.js';
import { sendJson } from '../http/send-json.js';
import { deliveryJson, jsonArray } from '../http/webhook-json.js';
import type { Exchange, RouteContext } from './route-context.js';

// Deliveries to the tenant's own endpoints, newest first. Scope
// before input, as everywhere; the core scopes every read to the tenant.

/** `GET /webhooks/deliveries?endpoint=&status=&eventType=&since=&until=&limit=&after=`: one keyset page, `Link` when more remain. */
export async function listDeliveries(context: RouteContext, exchange: Exchange): Promise<void> {
  const principal = await authenticateRequest(context.store, exchange);
  requireScope(principal, 'webhooks:read');
  const query = parseDeliveryListQuery(exchange.query);
  const page = await context.store.webhooks.deliveries.list(principal, query);
  const link = page.nextAfter === undefined ? undefined : ['link', nextLink(context.basePath, '/webhooks/deliveries', nextParams(query, page.nextAfter))];
  sendJson(exchange.res, exchange.requestId, 200, jsonArray(page.deliveries.map(deliveryJson)), link);
}

/** `GET /webhooks/deliveries/{id}`: one delivery with its attempts. */
export async function getDelivery(context: RouteContext, exchange: Exchange, idSegment: string): Promise<void> {
  const principal = await authenticateRequest(context.store, exchange);
  requireScope(principal, 'webhooks:read');
  const delivery = await context.store.webhooks.deliveries.get(principal, parsePathId(idSegment));
  sendJson(exchange.res, exchange.requestId, 200, deliveryJson(delivery));
}

/** `POST /webhooks/deliveries/{id}/resend`: 202 `{}`; queued again whatever its state, same `webhook-id`. A body is ignored. */
export async function resendDelivery(context: RouteContext, exchange: Exchange, idSegment: string): Promise<void> {
  const principal = await authenticateRequest(context.store, exchange);
  requireScope(principal, 'webhooks:write');
  await context.store.webhooks.deliveries.resend(principal, parsePathId(idSegment));
  sendJson(exchange.res, exchange.requestId, 202, '{}');
}

/** The query of the next page: the same filters and limit, after the last delivery of this one. */
function nextParams(query: DeliveryListQuery, after: string): [string, string | number][] {
  const params: [string, string | number][] = [];
  if (query.endpoint !== undefined) params.push(['endpoint', query.endpoint]);
  if (query.status !== undefined) params.push(['status', query.status]);
  if (query.eventType !== undefined) params.push(['eventType', query.eventType]);
  if (query.since !== undefined) params.push(['since', query.since]);
  if (query.until !== undefined) params.push(['until', query.until]);
  if (query.limit !== undefined) params.push(['limit', query.limit]);
  params.push(['after', after]);
  return params;
}
