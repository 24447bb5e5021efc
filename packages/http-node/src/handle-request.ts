import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { PlantStore } from '@plant-store/core';
import { silentLogger, type Logger } from '@plant-store/core/adapter';
import { docsFiles } from './docs/docs-files.js';
import { DEFAULT_MAX_BODY_BYTES, leavesLargeBodyUnread } from './http/read-body.js';
import { requestId } from './http/request-id.js';
import { describeError, sendError } from './http/send-error.js';
import { createHttpMetrics } from './metrics/http-metrics.js';
import { openapiDocument } from './openapi/openapi-document.js';
import { portalFiles, type PortalAssets } from './portal/portal-files.js';
import type { Exchange, RouteContext } from './routes/route-context.js';
import { routeRequest } from './routes/route-request.js';
import type { EndServerSpan } from './tracing/traced-request.js';
import { version as packageVersion } from './version.js';

export interface RequestListenerOptions {
  /** Largest accepted request body, in bytes; larger bodies get a 413. @default 65536 */
  readonly maxBodyBytes?: number;
  /** Receives one `request` line per request (method, path, status, durationMs, requestId) and server-side failures. Never tokens. @default silentLogger */
  readonly logger?: Logger;
  /** @default the package version */
  readonly version?: string;
  /**
   * Path prefix the API is mounted under, e.g. `/api`; requests outside it go to the host's `next`, else get a 404.
   * Under Express the mount path (`app.use('/api', …)`) is taken from the request and need not be repeated here. @default ''
   */
  readonly basePath?: string;
  /** Serve the swagger-ui API reference page at `<basePath>/docs`; off by default, as the page runs scripts on the host's origin. @default false */
  readonly docs?: boolean;
  /**
   * Prometheus metrics at `GET /metrics`, unauthenticated, so off unless asked. The listener subscribes to the store's
   * events for good: one listener with metrics per store. @default false
   */
  readonly metrics?: boolean;
  /** Serve the tenant webhook portal (`portalAssets()` of `@plant-store/portal`) at `<basePath>/portal`. @default undefined (no portal) */
  readonly portal?: PortalAssets;
}

/** Everything a listener or fetch handler shares across requests, built once; `openapiOptions` rebuild the document for another mount path. */
export interface ApiContext extends RouteContext {
  readonly openapiOptions: { readonly version: string; readonly docs: boolean; readonly metrics: boolean };
}

export function createApiContext(store: PlantStore, options: RequestListenerOptions): ApiContext {
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  if (!Number.isSafeInteger(maxBodyBytes) || maxBodyBytes < 0) {
    throw new RangeError(`maxBodyBytes must be a non-negative integer, got ${maxBodyBytes}`);
  }
  const basePath = normalizeBasePath(options.basePath ?? '');
  const metrics = options.metrics === true;
  const openapiOptions = { version: options.version ?? packageVersion, docs: options.docs === true, metrics };
  // swagger-ui-dist and prom-client are loaded only by the parts that need them.
  return {
    store,
    logger: options.logger ?? silentLogger,
    maxBodyBytes,
    basePath,
    openapiOptions,
    openapiJson: JSON.stringify(openapiDocument(openapiOptions.version, { basePath, docs: openapiOptions.docs, metrics })),
    docs: options.docs === true ? docsFiles() : undefined,
    portal: options.portal === undefined ? undefined : portalFiles(options.portal),
    ...(metrics ? { metrics: createHttpMetrics(store) } : {}),
  };
}

/** The same API answering under another base path (a framework's mount path), sharing metrics, docs and portal. */
export function rebasedContext(context: ApiContext, basePath: string): ApiContext {
  const { version, docs, metrics } = context.openapiOptions;
  let openapiJson: string | undefined;
  return {
    ...context,
    basePath,
    // Built when first asked for: a mount past the listener's cache gets a context per request, and few ask for the document.
    get openapiJson() {
      openapiJson ??= JSON.stringify(openapiDocument(version, { basePath, docs, metrics }));
      return openapiJson;
    },
  };
}

/** `/api/` becomes `/api`, `/` becomes `` (the root); anything not starting with `/` is refused. */
function normalizeBasePath(basePath: string): string {
  const trimmed = basePath.replace(/\/+$/, '');
  if (trimmed === '') return '';
  if (!/^\/[A-Za-z0-9._~!$&'()*+,;=:@%/-]*$/.test(trimmed) || trimmed.includes('//')) {
    throw new RangeError(`basePath must be a URL path such as /api, got ${JSON.stringify(basePath)}`);
  }
  return trimmed;
}

/** True when the request URL is the base path itself or below it (`/api`, `/api/…`, `/api?…`). */
export function isUnder(url: string, basePath: string): boolean {
  if (!url.startsWith(basePath)) return false;
  const next = url.charCodeAt(basePath.length);
  return Number.isNaN(next) || next === 0x2f /* / */ || next === 0x3f /* ? */;
}

/** Answers one request whose URL (path and query, from the host's root) is `url`, then ends its SERVER span; never rejects. */
export async function handleRequest(
  context: RouteContext,
  req: IncomingMessage,
  res: ServerResponse,
  url: string,
  endSpan: EndServerSpan | undefined,
): Promise<void> {
  const started = performance.now();
  const { logger } = context;
  const queryStart = url.indexOf('?');
  // The query string is left out of the log: it is user data and unbounded.
  const path = queryStart === -1 ? url : url.slice(0, queryStart);
  const routed = isUnder(path, context.basePath) ? path.slice(context.basePath.length) : undefined;
  const exchange: Exchange = {
    req,
    res,
    requestId: requestId(req.headers['x-request-id']),
    query: queryStart === -1 ? '' : url.slice(queryStart + 1),
    head: req.method === 'HEAD',
    route: undefined,
  };
  try {
    try {
      await routeRequest(context, exchange, routed);
    } catch (error) {
      sendError(res, exchange.requestId, error, logger, leavesLargeBodyUnread(req, context.maxBodyBytes));
    }
    recordRequest(context, logger, exchange, path, performance.now() - started);
  } catch (error) {
    // Answering the error or logging threw: nobody awaits this promise, so a rejection would end the process.
    lastResort(logger, res, error);
  }
  endSpan?.(exchange.route?.template);
}

function recordRequest(context: RouteContext, logger: Logger, { req, res, requestId, route }: Exchange, path: string, durationMs: number): void {
  context.metrics?.observe(req.method, route?.template, res.statusCode, durationMs / 1000);
  const fields = { method: req.method, path, status: res.statusCode, durationMs: Math.round(durationMs * 10) / 10, requestId };
  // aborted: a response cut short (client gone, or storage failed mid-stream).
  logger.info('request', res.writableEnded ? fields : { ...fields, aborted: true });
}

function lastResort(logger: Logger, res: ServerResponse, error: unknown): void {
  try {
    logger.error('request handling failed', { error: describeError(error) });
  } catch {
    // The logger is what failed; nothing left to report to.
  }
  // A half-written response must not look complete; a finished one stays.
  if (!res.writableEnded) res.destroy();
}
