import { HttpError } from '../http/http-error.js';
import type { Exchange, RouteContext } from './route-context.js';
import { idSegmentOf, matchRoute } from './route-table.js';

/** 404 and 405 come before authentication: the route table is public (it is the OpenAPI document). `path` is `undefined` outside the base path. */
export function routeRequest(context: RouteContext, exchange: Exchange, path: string | undefined): void | Promise<void> {
  const route = path === undefined ? undefined : matchRoute(path, context);
  if (route === undefined) throw new HttpError(404, `no resource at this path (see ${context.basePath}/openapi.json)`);
  exchange.route = route;
  const method = exchange.req.method;
  const handler = route.methods[method === 'HEAD' ? 'GET' : (method as 'GET')];
  if (handler === undefined) throw new HttpError(405, `method ${method} is not allowed here; allowed: ${route.allow}`, ['allow', route.allow]);
  return handler(context, exchange, route.idStart === -1 ? '' : idSegmentOf(path!, route), path!);
}
