import { HttpError } from '../http/http-error.js';
import { docsFile } from './docs-routes.js';
import { scrapeMetrics } from './metrics-route.js';
import { createPlant, deletePlant, getPlant, listPlants } from './plants-routes.js';
import type { Exchange, RouteContext } from './route-context.js';
import { healthz, openapi, readyz } from './system-routes.js';
import { WEBHOOK_ALLOWED_METHODS, matchTemplate, routeWebhooks } from './webhook-routes.js';

/** `Allow` of each path; HEAD is GET without a body wherever GET is allowed. */
export const ALLOWED_METHODS = {
  '/plants': 'GET, HEAD, POST',
  '/plants/{id}': 'GET, HEAD, DELETE',
  '/healthz': 'GET, HEAD',
  '/readyz': 'GET, HEAD',
  '/openapi.json': 'GET, HEAD',
  /** The API reference page and each of its files, when it is on. */
  '/docs': 'GET, HEAD',
  ...WEBHOOK_ALLOWED_METHODS,
  '/metrics': 'GET, HEAD',
} as const;

/** A path of the route table, as the OpenAPI document writes it. */
export type RouteTemplate = keyof typeof ALLOWED_METHODS;

const PLANTS_PREFIX = '/plants/';
const WEBHOOKS_PREFIX = '/webhooks/';

/**
 * Dispatches on path and method. Unknown paths (404) and wrong methods (405
 * with `Allow`) are answered before authentication: the route table is
 * public (it is the OpenAPI document), so this tells a caller nothing it
 * could not read there, and spares a token lookup.
 *
 * Paths are matched literally: no trailing-slash or double-slash
 * normalization, so `/plants/` and `//plants` are 404. Only the id segment
 * is percent-decoded. The webhooks paths are matched in webhook-routes.ts. `path` is relative to the base path; `undefined` for
 * a request outside it.
 */
export function routeRequest(context: RouteContext, exchange: Exchange, path: string | undefined): void | Promise<void> {
  if (path === undefined) throw notFound(context);
  const method = exchange.req.method;
  const get = method === 'GET' || method === 'HEAD';
  switch (path) {
    case '/plants':
      exchange.route = '/plants';
      if (get) return listPlants(context, exchange);
      if (method === 'POST') return createPlant(context, exchange);
      throw methodNotAllowed(method, ALLOWED_METHODS['/plants']);
    case '/healthz':
      if (get) return healthz(context, exchange);
      throw methodNotAllowed(method, ALLOWED_METHODS['/healthz']);
    case '/readyz':
      if (get) return readyz(context, exchange);
      throw methodNotAllowed(method, ALLOWED_METHODS['/readyz']);
    case '/openapi.json':
      if (get) return openapi(context, exchange);
      throw methodNotAllowed(method, ALLOWED_METHODS['/openapi.json']);
    case '/metrics':
      if (context.metrics === undefined) break; // metrics off: no such route
      if (get) return scrapeMetrics(context.metrics, exchange);
      throw methodNotAllowed(method, ALLOWED_METHODS['/metrics']);
    default:
  }
  if (context.docs?.has(path)) {
    if (get) return docsFile(context.docs, exchange, path);
    throw methodNotAllowed(method, ALLOWED_METHODS['/docs']);
  }
  if (isPlantPath(path)) {
    exchange.route = '/plants/{id}';
    const idSegment = path.slice(PLANTS_PREFIX.length);
    if (get) return getPlant(context, exchange, idSegment);
    if (method === 'DELETE') return deletePlant(context, exchange, idSegment);
    throw methodNotAllowed(method, ALLOWED_METHODS['/plants/{id}']);
  }
  const webhooks = path.startsWith(WEBHOOKS_PREFIX) ? routeWebhooks(context, exchange, path) : undefined;
  if (webhooks !== undefined) return webhooks;
  throw notFound(context);
}

/**
 * The route template a path (relative to the base path; `undefined` outside
 * it) belongs to, or `undefined` for none: how metrics label a request,
 * never by its raw path.
 */
export function routeTemplate(path: string | undefined): RouteTemplate | undefined {
  if (path === undefined) return undefined;
  if (Object.hasOwn(ALLOWED_METHODS, path)) return path as RouteTemplate;
  if (isPlantPath(path)) return '/plants/{id}';
  return matchTemplate(path)?.template;
}

/** `/plants/<one non-empty segment>`. */
function isPlantPath(path: string): boolean {
  return path.startsWith(PLANTS_PREFIX) && path.length > PLANTS_PREFIX.length && path.indexOf('/', PLANTS_PREFIX.length) === -1;
}

function notFound(context: RouteContext): HttpError {
  return new HttpError(404, `no resource at this path (see ${context.basePath}/openapi.json)`);
}

function methodNotAllowed(method: string | undefined, allow: string): HttpError {
  return new HttpError(405, `method ${method} is not allowed here; allowed: ${allow}`, ['allow', allow]);
}
