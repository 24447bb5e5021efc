import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PlantStore } from '@plant-store/core';
import type { Logger } from '@plant-store/core/adapter';
import type { DocsFiles } from '../docs/docs-files.js';
import type { HttpMetrics } from '../metrics/http-metrics.js';

/** What every route handler shares for the lifetime of a listener (built once, not per request). */
export interface RouteContext {
  readonly store: PlantStore;
  readonly logger: Logger;
  readonly maxBodyBytes: number;
  /** Where the API is mounted (`''` at the root, else e.g. `/api`); prefixes every link the API writes. */
  readonly basePath: string;
  /** The OpenAPI document, serialized once. */
  readonly openapiJson: string;
  /** The API reference page's files; `undefined` when the page is off (its paths are then 404). */
  readonly docs: DocsFiles | undefined;
  /** The tenant portal's files; `undefined` when the portal is off (its paths are then 404). */
  readonly portal: DocsFiles | undefined;
  /** Present when metrics are on: requests are recorded and `GET /metrics` exists. */
  readonly metrics?: HttpMetrics;
}

/** One request being answered. */
export interface Exchange {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly requestId: string;
  /** Raw query string without the `?` (empty when none). */
  readonly query: string;
  /** True for HEAD: answer as for GET, without a body. */
  readonly head: boolean;
  /** The route the router matched (`undefined` until then, and for none): metrics and traces read its template instead of matching again. */
  route: Route | undefined;
}

/**
 * Answers one request on a matched route. `idSegment` is the raw (still
 * percent-encoded) `{id}` segment, `''` for a template without one; `path`
 * the request path relative to the base path.
 */
export type RouteHandler = (context: RouteContext, exchange: Exchange, idSegment: string, path: string) => void | Promise<void>;

/** A route's handlers by method; HEAD is looked up as GET. */
export type RouteMethods = Readonly<Partial<Record<'GET' | 'POST' | 'PATCH' | 'DELETE', RouteHandler>>>;

/** One path of the API (see the route table). Built once; a match is one of these (no per-request object). */
export interface Route {
  /** The path as the OpenAPI document writes it, or `/portal`. */
  readonly template: string;
  /** The `Allow` header of a 405: GET implies HEAD. */
  readonly allow: string;
  readonly methods: RouteMethods;
  /** Offset of `{id}` in the template, -1 for none: the text before it is literal, so the id starts at the same offset in a matching path. */
  readonly idStart: number;
}
