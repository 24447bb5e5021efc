import type { Server } from 'node:http';
import type { PlantStore } from '@plant-store/core';
import { handleClientError } from './http/handle-client-error.js';
import { createTimedServer, type ServerTimeoutOptions } from './http/server-timeouts.js';
import { createRequestListener, type RequestListenerOptions } from './request-listener.js';

export interface PlantServerOptions extends RequestListenerOptions, ServerTimeoutOptions {}

/** A node:http server running the API, with timeouts that keep stalled clients from tying it up; it does not listen yet. */
export function createPlantServer(store: PlantStore, options: PlantServerOptions = {}): Server {
  const server = createTimedServer(createRequestListener(store, options), options);
  server.on('clientError', handleClientError);
  return server;
}
