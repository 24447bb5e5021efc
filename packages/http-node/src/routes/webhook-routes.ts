import { HttpError } from '../http/http-error.js';
import type { Exchange, RouteContext } from './route-context.js';
import { getDelivery, listDeliveries, resendDelivery } from './webhook-deliveries-routes.js';
import {
  createEndpoint,
  deleteEndpoint,
  getEndpoint,
  getEndpointSecret,
  getEndpointStats,
  listEndpoints,
  recoverEndpoint,
  rotateEndpointSecret,
  sendTestEvent,
  updateEndpoint,
} from './webhook-endpoints-routes.js';
import { listEventTypes } from './webhook-event-types-route.js';
import { getSession } from './webhook-session-route.js';

/** `Allow` of each webhooks path. */
export const WEBHOOK_ALLOWED_METHODS = {
  '/webhooks/endpoints': 'GET, HEAD, POST',
  '/webhooks/endpoints/{id}': 'GET, HEAD, PATCH, DELETE',
  '/webhooks/endpoints/{id}/secret': 'GET, HEAD',
  '/webhooks/endpoints/{id}/rotate-secret': 'POST',
  '/webhooks/endpoints/{id}/recover': 'POST',
  '/webhooks/endpoints/{id}/stats': 'GET, HEAD',
  '/webhooks/endpoints/{id}/test': 'POST',
  '/webhooks/deliveries': 'GET, HEAD',
  '/webhooks/deliveries/{id}': 'GET, HEAD',
  '/webhooks/deliveries/{id}/resend': 'POST',
  '/webhooks/session': 'GET, HEAD',
  '/webhooks/event-types': 'GET, HEAD',
} as const;

type Handler = (context: RouteContext, exchange: Exchange, idSegment: string) => Promise<void>;
export type Template = keyof typeof WEBHOOK_ALLOWED_METHODS;

/** Handlers per path template and method; HEAD is served by GET's handler. */
const ROUTES: Record<Template, Partial<Record<string, Handler>>> = {
  '/webhooks/endpoints': { GET: listEndpoints, POST: createEndpoint },
  '/webhooks/endpoints/{id}': { GET: getEndpoint, PATCH: updateEndpoint, DELETE: deleteEndpoint },
  '/webhooks/endpoints/{id}/secret': { GET: getEndpointSecret },
  '/webhooks/endpoints/{id}/rotate-secret': { POST: rotateEndpointSecret },
  '/webhooks/endpoints/{id}/recover': { POST: recoverEndpoint },
  '/webhooks/endpoints/{id}/stats': { GET: getEndpointStats },
  '/webhooks/endpoints/{id}/test': { POST: sendTestEvent },
  '/webhooks/deliveries': { GET: listDeliveries },
  '/webhooks/deliveries/{id}': { GET: getDelivery },
  '/webhooks/deliveries/{id}/resend': { POST: resendDelivery },
  '/webhooks/session': { GET: getSession },
  '/webhooks/event-types': { GET: listEventTypes },
};

const COLLECTIONS = new Set(['endpoints', 'deliveries', 'session', 'event-types']);
const ACTIONS = new Set(['secret', 'rotate-secret', 'recover', 'resend', 'stats', 'test']);

/**
 * Dispatches a path below `/webhooks/`; `undefined` when the path is none
 * of the API's (the caller answers 404). A wrong method is a 405 with
 * `Allow`, before authentication, as for every route. Only the id segment
 * is percent-decoded, by the handler.
 */
export function routeWebhooks(context: RouteContext, exchange: Exchange, path: string): Promise<void> | undefined {
  const match = matchTemplate(path);
  if (match === undefined) return undefined;
  const method = exchange.req.method === 'HEAD' ? 'GET' : (exchange.req.method ?? '');
  const handler = ROUTES[match.template][method];
  if (handler === undefined) {
    const allow = WEBHOOK_ALLOWED_METHODS[match.template];
    throw new HttpError(405, `method ${exchange.req.method} is not allowed here; allowed: ${allow}`, ['allow', allow]);
  }
  return handler(context, exchange, match.idSegment);
}

/** `/webhooks/<collection>[/<id>[/<action>]]` → its template and raw id segment. */
export function matchTemplate(path: string): { template: Template; idSegment: string } | undefined {
  // ['', 'webhooks', collection, id?, action?]
  const parts = path.split('/');
  if (parts.length < 3 || parts.length > 5 || parts[1] !== 'webhooks' || !COLLECTIONS.has(parts[2]!)) return undefined;
  const [, , collection, idSegment = '', action] = parts;
  if (parts.length > 3 && idSegment === '') return undefined;
  if (action !== undefined && !ACTIONS.has(action)) return undefined;
  const template = `/webhooks/${collection}${parts.length > 3 ? '/{id}' : ''}${action === undefined ? '' : `/${action}`}`;
  return template in ROUTES ? { template: template as Template, idSegment } : undefined;
}
