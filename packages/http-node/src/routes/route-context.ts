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
  /** `''` at the root, else e.g. `/api`. */
  readonly basePath: string;
  readonly openapiJson: string;
  // Each `undefined` when its part is off (its paths are then 404).
  readonly docs: DocsFiles | undefined;
  readonly portal: DocsFiles | undefined;
  readonly metrics?: HttpMetrics;
}

export interface Exchange {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly requestId: string;
  /** Raw query string without the `?`. */
  readonly query: string;
  readonly head: boolean;
  /** The route the router matched, for metrics and traces. */
  route: Route | undefined;
}

/** `idSegment` is the raw (percent-encoded) `{id}` segment, `''` without one; `path` is relative to the base path. */
export type RouteHandler = (context: RouteContext, exchange: Exchange, idSegment: string, path: string) => void | Promise<void>;

/** A route's handlers by method; HEAD is looked up as GET. */
export type RouteMethods = Readonly<Partial<Record<'GET' | 'POST' | 'PATCH' | 'DELETE', RouteHandler>>>;

export interface Route {
  /** The path as the OpenAPI document writes it, or `/portal`. */
  readonly template: string;
  /** The `Allow` header of a 405. */
  readonly allow: string;
  readonly methods: RouteMethods;
  /** Offset of `{id}` in the template (the same in a matching path), -1 for none. */
  readonly idStart: number;
}
