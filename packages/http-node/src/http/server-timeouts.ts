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

/**
 * A node:http server for `listener` with those timeouts; it does not listen yet. Its inactivity timeout also covers a
 * client that stops reading its response, but never a slow answer of the API's own (see `handleSocketTimeout`).
 */
export function createTimedServer(listener: RequestListener, options: ServerTimeoutOptions): Server {
  const headersTimeout = positive('headersTimeoutMs', options.headersTimeoutMs ?? 10_000);
  const requestTimeout = positive('requestTimeoutMs', options.requestTimeoutMs ?? 30_000);
  const keepAliveTimeout = positive('keepAliveTimeoutMs', options.keepAliveTimeoutMs ?? 5_000);
  const firstCut = Math.min(headersTimeout, requestTimeout);
  const server = createServer(
    {
      headersTimeout: firstCut,
      requestTimeout,
      // node:http enforces both timeouts by a sweep (every 30 s by default): sweep often enough to cut a slow client on time.
      connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(firstCut / 4))),
      // TCP keep-alive probes: connections to vanished peers get reaped.
      keepAlive: true,
    },
    listener,
  );
  server.keepAliveTimeout = keepAliveTimeout;
  server.timeout = requestTimeout;
  server.on('timeout', handleSocketTimeout);
  // Listening replaces node:http's bodiless 417 for an unknown `Expect`.
  server.on('checkExpectation', rejectExpectation);
  return server;
}

function positive(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0) throw new RangeError(`${name} must be a positive number of milliseconds, got ${value}`);
  return value;
}
