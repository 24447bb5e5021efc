import type { Socket } from 'node:net';
import { handleClientError } from '../http/handle-client-error.js';

export interface FastifyServerTimeouts {
  /** Time a client gets to send the complete request headers. @default 10000 */
  readonly headersTimeoutMs?: number;
  /** Time a client gets to send the complete request (the API answers 408 in its error shape after it). @default 30000 */
  readonly requestTimeoutMs?: number;
  /** How long an idle keep-alive connection stays open between requests. @default 5000 */
  readonly keepAliveTimeoutMs?: number;
}

/** The slice of Fastify's server options these set (a plain object, so fastify stays a type-only import here). */
export interface PlantStoreFastifyServerOptions {
  readonly requestTimeout: number;
  readonly connectionTimeout: number;
  readonly keepAliveTimeout: number;
  readonly http: { readonly headersTimeout: number; readonly connectionsCheckingInterval: number; readonly keepAlive: true };
  readonly clientErrorHandler: (error: Error, socket: Socket) => void;
}

/**
 * Options for `Fastify({ ...fastifyServerOptions() })`: the service's timeouts (Fastify's default is no request
 * timeout at all, so a stalled upload would hold its connection forever) and its error shape for the requests node:http
 * refuses itself, a stalled API upload's 408 included. A plugin cannot set these: they belong to the server.
 */
export function fastifyServerOptions(timeouts: FastifyServerTimeouts = {}): PlantStoreFastifyServerOptions {
  const headersTimeout = positive('headersTimeoutMs', timeouts.headersTimeoutMs ?? 10_000);
  const requestTimeout = positive('requestTimeoutMs', timeouts.requestTimeoutMs ?? 30_000);
  const keepAliveTimeout = positive('keepAliveTimeoutMs', timeouts.keepAliveTimeoutMs ?? 5_000);
  return {
    requestTimeout,
    // Inactivity in either direction: also covers a client that stops reading its response.
    connectionTimeout: requestTimeout,
    keepAliveTimeout,
    http: {
      headersTimeout: Math.min(headersTimeout, requestTimeout),
      // node:http checks both timeouts on a sweep (every 30 s by default): often enough to cut a slow client on time.
      connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(Math.min(headersTimeout, requestTimeout) / 4))),
      keepAlive: true,
    },
    clientErrorHandler: handleClientError,
  };
}

function positive(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0) throw new RangeError(`${name} must be a positive number of milliseconds, got ${value}`);
  return value;
}
