import type { PlantStore, Principal } from '@plant-store/core';
import { authorizeRequest } from '../http/authenticate-request.js';
import { nextLink } from '../http/next-link.js';
import { parseDeliveryListQuery, parseEndpointListQuery } from '../http/parse-webhook-list-query.js';
import { parsePathId } from '../http/parse-path-id.js';
import { readJsonBody, readOptionalJsonBody } from '../http/read-json-body.js';
import { sendJson, sendNoContent } from '../http/send-json.js';
import { deliveryJson, endpointJson, endpointStatsJson, endpointWithSecretJson, jsonArray } from '../http/webhook-json.js';
import type { Exchange, RouteContext, RouteHandler } from './route-context.js';

// Every handler authenticates and checks the scope before it looks at the id, the query or the body.

type Webhooks = PlantStore['webhooks'];
type Scope = 'webhooks:read' | 'webhooks:write';

/** A handler that answers `status` with the JSON `answer` makes of the `{id}` (if the route has one) and the body `body` asks for. */
function handler(
  scope: Scope,
  status: number,
  body: 'none' | 'json' | 'optional',
  answer: (webhooks: Webhooks, principal: Principal, id: string, body: unknown) => Promise<string>,
): RouteHandler {
  return async (context, exchange, idSegment) => {
    const principal = await authorizeRequest(context.store, exchange, scope);
    const id = idSegment === '' ? '' : parsePathId(idSegment);
    const read = body === 'json' ? readJsonBody : body === 'optional' ? readOptionalJsonBody : undefined;
    const input = read === undefined ? undefined : await read(exchange.req, context.maxBodyBytes);
    sendJson(exchange.res, exchange.requestId, status, await answer(context.store.webhooks, principal, id, input));
  };
}

export const createEndpoint = handler('webhooks:write', 201, 'json', async (webhooks, principal, _id, body) => {
  const { endpoint, secret } = await webhooks.endpoints.create(principal, body);
  return endpointWithSecretJson(endpoint, secret);
});

export const getEndpoint = handler('webhooks:read', 200, 'none', async (webhooks, principal, id) => endpointJson(await webhooks.endpoints.get(principal, id)));

export const updateEndpoint = handler('webhooks:write', 200, 'json', async (webhooks, principal, id, body) =>
  endpointJson(await webhooks.endpoints.update(principal, id, body)),
);

export async function deleteEndpoint(context: RouteContext, exchange: Exchange, idSegment: string): Promise<void> {
  const principal = await authorizeRequest(context.store, exchange, 'webhooks:write');
  await context.store.webhooks.endpoints.delete(principal, parsePathId(idSegment));
  sendNoContent(exchange.res, exchange.requestId);
}

// A write scope: the secret lets one forge webhooks.
export const getEndpointSecret = handler('webhooks:write', 200, 'none', async (webhooks, principal, id) =>
  JSON.stringify({ secret: await webhooks.endpoints.getSecret(principal, id) }),
);

export const rotateEndpointSecret = handler('webhooks:write', 200, 'optional', async (webhooks, principal, id, body) =>
  JSON.stringify({ secret: await webhooks.endpoints.rotateSecret(principal, id, body) }),
);

export const recoverEndpoint = handler('webhooks:write', 202, 'json', async (webhooks, principal, id, body) =>
  JSON.stringify({ requeued: (await webhooks.endpoints.recover(principal, id, body)).requeued }),
);

export const getEndpointStats = handler('webhooks:read', 200, 'none', async (webhooks, principal, id) =>
  endpointStatsJson(await webhooks.endpoints.stats(principal, id)),
);

export const sendTestEvent = handler('webhooks:write', 202, 'json', async (webhooks, principal, id, body) =>
  deliveryJson(await webhooks.endpoints.sendTest(principal, id, body)),
);

export const checkFilter = handler('webhooks:read', 200, 'json', async (webhooks, principal, _id, body) =>
  JSON.stringify(webhooks.endpoints.checkFilter(principal, body)),
);

export const getDelivery = handler('webhooks:read', 200, 'none', async (webhooks, principal, id) => deliveryJson(await webhooks.deliveries.get(principal, id)));

export const resendDelivery = handler('webhooks:write', 202, 'none', async (webhooks, principal, id) => {
  await webhooks.deliveries.resend(principal, id);
  return '{}';
});

export async function listEndpoints(context: RouteContext, exchange: Exchange): Promise<void> {
  const principal = await authorizeRequest(context.store, exchange, 'webhooks:read');
  const query = parseEndpointListQuery(exchange.query);
  const page = await context.store.webhooks.endpoints.list(principal, query);
  sendPage(context, exchange, '/webhooks/endpoints', query, page.nextAfter, page.endpoints.map(endpointJson));
}

export async function listDeliveries(context: RouteContext, exchange: Exchange): Promise<void> {
  const principal = await authorizeRequest(context.store, exchange, 'webhooks:read');
  const query = parseDeliveryListQuery(exchange.query);
  const page = await context.store.webhooks.deliveries.list(principal, query);
  sendPage(context, exchange, '/webhooks/deliveries', query, page.nextAfter, page.deliveries.map(deliveryJson));
}

/** A page of a listing; its `Link` repeats the query's filters and limit (in their order), after the last item of this page. */
function sendPage(context: RouteContext, exchange: Exchange, path: string, query: object, nextAfter: string | undefined, items: string[]): void {
  const params = Object.entries(query).filter(([name]) => name !== 'after') as [string, string | number][];
  const link = nextAfter === undefined ? undefined : ['link', nextLink(context.basePath, path, [...params, ['after', nextAfter]])];
  sendJson(exchange.res, exchange.requestId, 200, jsonArray(items), link);
}
