import { HttpError } from '../http/http-error.js';
import type { Exchange, RouteContext } from './route-context.js';
import { idSegmentOf, matchRoute } from './route-table.js';

/**
 * Dispatches on path and method through the route table, leaving the match on
 * `exchange.route` for metrics and traces. Unknown paths (404) and wrong
 * methods (405 with `Allow`) are answered before authentication: the route
 * table is public (it is the OpenAPI document). `path` is relative to the
 * base path, `undefined` outside it.
 */
export function routeRequest(context: RouteContext, exchange: Exchange, path: string | undefined): void | Promise<void> {
  const route = path === undefined ? undefined : matchRoute(path, context);
  if (route === undefined) throw notFound(context);
  exchange.route = route;
  const method = exchange.req.method;
  const handler = route.methods[method === 'HEAD' ? 'GET' : (method as 'GET')];
  if (handler === undefined) throw methodNotAllowed(method, route.allow);
  return handler(context, exchange, route.idStart === -1 ? '' : idSegmentOf(path!, route), path!);
}

function notFound(context: RouteContext): HttpError {
  return new HttpError(404, `no resource at this path (see ${context.basePath}/openapi.json)`);
}

function methodNotAllowed(method: string | undefined, allow: string): HttpError {
  return new HttpError(405, `method ${method} is not allowed here; allowed: ${allow}`, ['allow', allow]);
}
