import { createServer, type Server } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import type { PlantStore } from '@plant-store/core';
import { createFetchHandler, createPlantServer, type PlantServerOptions } from '@plant-store/http-node';

// Which front of the API a suite drives: the same HTTP cases must hold for the node listener and the fetch handler.

/** `listener`: the node:http listener in `createPlantServer`; `fetch`: the fetch handler behind a node:http bridge (@hono/node-server). */
export type HttpFront = 'listener' | 'fetch';

/** Both fronts, for `describe.each`: the same HTTP cases must hold for each. */
export const HTTP_FRONTS: readonly HttpFront[] = ['listener', 'fetch'];

/** A server (not listening yet) answering with the given front. */
export function createFrontServer(front: HttpFront, store: PlantStore, options: PlantServerOptions): Server {
  if (front === 'listener') return createPlantServer(store, options);
  const { headersTimeoutMs: _headers, requestTimeoutMs: _request, keepAliveTimeoutMs: _keepAlive, ...handlerOptions } = options;
  // Global Request and Response stay node's own: the handler must work with the standard ones.
  return createServer(getRequestListener(createFetchHandler(store, handlerOptions), { overrideGlobalObjects: false }));
}
