import { createServer, type Server } from 'node:http';
import type { PlantStore } from '@plant-store/core';
import { handleClientError } from './http/handle-client-error.js';
import { handleSocketTimeout } from './http/handle-socket-timeout.js';
import { rejectExpectation } from './http/reject-expectation.js';
import { createRequestListener, type RequestListenerOptions } from './request-listener.js';

export interface PlantServerOptions extends RequestListenerOptions {
  /** Time a client gets to send the complete request headers; slower connections are closed (408). @default 10000 */
  readonly headersTimeoutMs?: number;
  /** Time a client gets to send the complete request (408 after it); also the longest a client may leave a connection silent. @default 30000 */
  readonly requestTimeoutMs?: number;
  /** How long an idle keep-alive connection stays open between requests. @default 5000 */
  readonly keepAliveTimeoutMs?: number;
}

/** A node:http server running the API, with timeouts that keep stalled clients from tying it up; it does not listen yet. */
export function createPlantServer(store: PlantStore, options: PlantServerOptions = {}): Server {
  const headersTimeout = positive('headersTimeoutMs', options.headersTimeoutMs ?? 10_000);
  const requestTimeout = positive('requestTimeoutMs', options.requestTimeoutMs ?? 30_000);
  const keepAliveTimeout = positive('keepAliveTimeoutMs', options.keepAliveTimeoutMs ?? 5_000);
  const server = createServer(
    {
      // node:http enforces both timeouts by a sweep (every 30 s by default): sweep often enough to cut a slow client on time.
      headersTimeout: Math.min(headersTimeout, requestTimeout),
      requestTimeout,
      connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(Math.min(headersTimeout, requestTimeout) / 4))),
      // TCP keep-alive probes: connections to vanished peers get reaped.
      keepAlive: true,
    },
    createRequestListener(store, options),
  );
  server.keepAliveTimeout = keepAliveTimeout;
  // Inactivity: also covers a client that stops reading its response; a slow answer of ours does not count.
  server.timeout = requestTimeout;
  server.on('timeout', handleSocketTimeout);
  server.on('clientError', handleClientError);
  // Listening replaces node:http's bodiless 417 for an unknown `Expect`.
  server.on('checkExpectation', rejectExpectation);
  return server;
}

function positive(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0) throw new RangeError(`${name} must be a positive number of milliseconds, got ${value}`);
  return value;
}
