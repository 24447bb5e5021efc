import { docsFile } from './docs-routes.js';
import { scrapeMetrics } from './metrics-route.js';
import { createPlant, deletePlant, getPlant, listPlants } from './plants-routes.js';
import type { Route, RouteMethods } from './route-context.js';
import { healthz, openapi, readyz } from './system-routes.js';
import {
  checkFilter,
  createEndpoint,
  deleteEndpoint,
  getDelivery,
  getEndpoint,
  getEndpointSecret,
  getEndpointStats,
  listDeliveries,
  listEndpoints,
  recoverEndpoint,
  resendDelivery,
  rotateEndpointSecret,
  sendTestEvent,
  updateEndpoint,
} from './webhook-routes.js';
import { listEventTypes } from './webhook-event-types-route.js';
import { getSession } from './webhook-session-route.js';

/** The API's paths, as the OpenAPI document writes them, with a handler per method (HEAD is served by GET's). */
const TABLE = {
  '/plants': { GET: listPlants, POST: createPlant },
  '/plants/{id}': { GET: getPlant, DELETE: deletePlant },
  '/healthz': { GET: healthz },
  '/readyz': { GET: readyz },
  '/openapi.json': { GET: openapi },
  // /docs and /metrics are matched only when their part is on, so `context.docs` and `context.metrics` are there.
  '/docs': { GET: (context, exchange, _id, path) => docsFile(context.docs!, exchange, path) },
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
  '/webhooks/filter-check': { POST: checkFilter },
  '/metrics': { GET: (context, exchange) => scrapeMetrics(context.metrics!, exchange) },
} as const satisfies Record<string, RouteMethods>;

/** Which optional parts a listener has on (a `RouteContext` is one); routes of a part that is off do not exist (404). */
export interface RouteParts {
  readonly docs?: { has(path: string): boolean } | undefined;
  readonly portal?: { has(path: string): boolean } | undefined;
  readonly metrics?: unknown;
}

function routeOf(template: string, methods: RouteMethods): Route {
  return { template, allow: allowOf(methods), methods, idStart: template.indexOf('{id}') };
}

const routes = new Map<string, Route>(Object.entries(TABLE).map(([template, methods]: [string, RouteMethods]) => [template, routeOf(template, methods)]));

/** The tenant portal (it signs in from the browser): a page, not an operation, so it stays out of the table and the OpenAPI document. */
const PORTAL = routeOf('/portal', { GET: (context, exchange, _id, path) => docsFile(context.portal!, exchange, path) });

export const ROUTES: readonly Route[] = [...routes.values()];

const PLAIN = new Map(
  ROUTES.filter((route) => route.idStart === -1 && route.template !== '/docs' && route.template !== '/metrics').map((route) => [route.template, route]),
);

/** A collection whose members have `{id}` routes: `<prefix><id>` and `<prefix><id>/<action>`. */
interface IdFamily {
  readonly prefix: string;
  readonly item: Route;
  readonly actions: readonly { readonly suffix: string; readonly route: Route }[];
}

const ID_FAMILIES: readonly IdFamily[] = ['/plants/', '/webhooks/endpoints/', '/webhooks/deliveries/'].map((prefix) => {
  const item = routes.get(`${prefix}{id}`)!;
  const actions = ROUTES.filter((route) => route.template.startsWith(`${prefix}{id}/`)).map((route) => ({
    suffix: route.template.slice(prefix.length + '{id}'.length),
    route,
  }));
  return { prefix, item, actions };
});

/** The route of a path relative to the base path, matched literally (`/plants/` and `//plants` match nothing); allocates nothing. */
export function matchRoute(path: string, parts: RouteParts): Route | undefined {
  const plain = PLAIN.get(path);
  if (plain !== undefined) return plain;
  if (path === '/metrics') return parts.metrics === undefined ? undefined : routes.get('/metrics');
  for (const family of ID_FAMILIES) {
    if (!path.startsWith(family.prefix)) continue;
    const start = family.prefix.length;
    const end = path.indexOf('/', start);
    if (end === start || path.length === start) return undefined;
    if (end === -1) return family.item;
    for (const action of family.actions) {
      if (path.length - end === action.suffix.length && path.startsWith(action.suffix, end)) return action.route;
    }
    return undefined;
  }
  if (parts.docs?.has(path) === true) return routes.get('/docs');
  return parts.portal?.has(path) === true ? PORTAL : undefined;
}

export function idSegmentOf(path: string, route: Route): string {
  const end = path.indexOf('/', route.idStart);
  return end === -1 ? path.slice(route.idStart) : path.slice(route.idStart, end);
}

function allowOf(methods: RouteMethods): string {
  return Object.keys(methods)
    .flatMap((method) => (method === 'GET' ? ['GET', 'HEAD'] : [method]))
    .join(', ');
}
