import { createServer, type RequestListener, type Server } from 'node:http';
import { handleSocketTimeout } from './handle-socket-timeout.js';
import { rejectExpectation } from './reject-expectation.js';

/** The timeouts a server running the API is given, in milliseconds; every one optional. */
export interface ServerTimeoutOptions {
  /** Time a client gets to send the complete request headers; slower connections are closed (408). @default 10000 */
  readonly headersTimeoutMs?: number;
  /** Time a client gets to send the complete request (408 after it); also the longest a client may leave a connection silent. @default 30000 */
  readonly requestTimeoutMs?: number;
  /** How long an idle keep-alive connection stays open between requests. @default 5000 */
  readonly keepAliveTimeoutMs?: number;
}

/** The node:http settings those options come to, shared by the plain server and the Fastify options. */
export interface ServerTimeouts {
  readonly headersTimeout: number;
  readonly requestTimeout: number;
  readonly keepAliveTimeout: number;
  /** node:http enforces the headers and request timeouts by a sweep (every 30 s by default): sweep often enough to cut a slow client on time. */
  readonly connectionsCheckingInterval: number;
}

export function serverTimeouts(options: ServerTimeoutOptions): ServerTimeouts {
  const headersTimeout = positive('headersTimeoutMs', options.headersTimeoutMs ?? 10_000);
  const requestTimeout = positive('requestTimeoutMs', options.requestTimeoutMs ?? 30_000);
  const keepAliveTimeout = positive('keepAliveTimeoutMs', options.keepAliveTimeoutMs ?? 5_000);
  const firstCut = Math.min(headersTimeout, requestTimeout);
  return {
    headersTimeout: firstCut,
    requestTimeout,
    keepAliveTimeout,
    connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(firstCut / 4))),
  };
}

function positive(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0) throw new RangeError(`${name} must be a positive number of milliseconds, got ${value}`);
  return value;
}

/**
 * A node:http server for `listener` with those timeouts; it does not listen yet. Its inactivity timeout also covers a
 * client that stops reading its response, but never a slow answer of the API's own (see `handleSocketTimeout`).
 */
export function createTimedServer(listener: RequestListener, options: ServerTimeoutOptions): Server {
  const { headersTimeout, requestTimeout, keepAliveTimeout, connectionsCheckingInterval } = serverTimeouts(options);
  // TCP keep-alive probes: connections to vanished peers get reaped.
  const server = createServer({ headersTimeout, requestTimeout, connectionsCheckingInterval, keepAlive: true }, listener);
  server.keepAliveTimeout = keepAliveTimeout;
  server.timeout = requestTimeout;
  server.on('timeout', handleSocketTimeout);
  // Listening replaces node:http's bodiless 417 for an unknown `Expect`.
  server.on('checkExpectation', rejectExpectation);
  return server;
}
