import type { PlantStore } from '@plant-store/core';
import { createApiContext, handleRequest, type RequestListenerOptions } from '../handle-request.js';
import { tracedRequest } from '../tracing/traced-request.js';
import { requestOf } from './fetch-request.js';
import { FetchResponse } from './fetch-response.js';

/** A web-standard handler: Hono, Bun, Deno, Next.js route handlers and other fetch runtimes. */
export type FetchHandler = (request: Request) => Promise<Response>;

/** Everything the listener takes; `basePath` is the full path the host routes to the handler, e.g. `/api`. */
export type FetchHandlerOptions = RequestListenerOptions;

/**
 * The Plant Store HTTP API as a `Request` → `Response` function: the node listener's routes, statuses, errors, auth
 * and limits, run on adapters of the web objects (the node listener keeps working on node:http objects directly).
 * Every path is answered, the ones outside `basePath` with the API's 404: route only the API's paths to it.
 */
export function createFetchHandler(store: PlantStore, options: FetchHandlerOptions = {}): FetchHandler {
  const context = createApiContext(store, options);
  return (request) => {
    const url = new URL(request.url);
    const req = requestOf(request, url);
    const res = new FetchResponse(request.method === 'HEAD');
    const serverResponse = res.asServerResponse();
    void tracedRequest(req, serverResponse, context.basePath, (endSpan) =>
      handleRequest(context, req, serverResponse, url.pathname + url.search, endSpan),
    ).finally(() => {
      // The handler may have answered without reading the body (a 401, a 413): stop the upload.
      if (!req.readableEnded) req.destroy();
    });
    return res.response;
  };
}
