import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PlantStore } from '@plant-store/core';
import { createApiContext, handleRequest, isUnder, rebasedContext, type ApiContext, type RequestListenerOptions } from './handle-request.js';
import { matchRoute } from './routes/route-table.js';
import { tracedRequest } from './tracing/traced-request.js';

export type { RequestListenerOptions } from './handle-request.js';

/** A node:http request listener; a host may pass `next` to receive the requests outside the base path. */
export type RequestListener = (req: IncomingMessage, res: ServerResponse, next?: () => void) => void;

/** What Express (4 and 5) adds to a request: the path it was mounted at and the URL before it stripped that path. */
interface ExpressRequest extends IncomingMessage {
  readonly baseUrl?: unknown;
  readonly originalUrl?: unknown;
}

// Mount paths with parameters could make one per request: past this many, contexts are built per request instead.
const MAX_CACHED_MOUNTS = 64;

/**
 * The Plant Store HTTP API as a node:http listener that never listens itself (`createPlantServer` gives one with the
 * right timeouts). It is Express middleware too: `app.use('/api', listener)` serves the API under the mount path and
 * hands paths that are not the API's to `next`.
 */
export function createRequestListener(store: PlantStore, options: RequestListenerOptions = {}): RequestListener {
  const context = createApiContext(store, options);
  const { basePath } = context;
  // By Express's `baseUrl`: a known mount costs one lookup per request.
  const mounts = new Map<string, ApiContext>();
  const mountedAt = (baseUrl: string): ApiContext => {
    const known = mounts.get(baseUrl);
    if (known !== undefined) return known;
    // `app.use('/api', …)` with `basePath: '/api'` too means the same mount, not `/api/api`.
    const mountPath = baseUrl.endsWith(basePath) ? baseUrl : baseUrl + basePath;
    const mounted = mountPath === basePath ? context : rebasedContext(context, mountPath);
    if (mounts.size < MAX_CACHED_MOUNTS) mounts.set(baseUrl, mounted);
    return mounted;
  };
  return (req, res, next) => {
    const { baseUrl, originalUrl } = req as ExpressRequest;
    if (typeof baseUrl === 'string' && typeof originalUrl === 'string') {
      const mounted = mountedAt(baseUrl);
      // Express users expect middleware to pass on what it does not serve: the host may have more routes under the mount path.
      if (next !== undefined && !ownsPath(mounted, originalUrl)) {
        next();
        return;
      }
      void tracedRequest(req, res, mounted.basePath, (endSpan) => handleRequest(mounted, req, res, originalUrl, endSpan));
      return;
    }
    const url = req.url ?? '/';
    if (next !== undefined && !isUnder(url, basePath)) {
      next();
      return;
    }
    void tracedRequest(req, res, basePath, (endSpan) => handleRequest(context, req, res, url, endSpan));
  };
}

/** The URL is one of the API's routes (any method: a wrong one is still the API's 405). */
function ownsPath(context: ApiContext, url: string): boolean {
  const queryStart = url.indexOf('?');
  const path = queryStart === -1 ? url : url.slice(0, queryStart);
  return isUnder(path, context.basePath) && matchRoute(path.slice(context.basePath.length), context) !== undefined;
}
