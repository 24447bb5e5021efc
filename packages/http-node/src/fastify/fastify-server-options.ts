import type { RequestListener, Server } from 'node:http';
import type { Socket } from 'node:net';
import { handleClientError } from '../http/handle-client-error.js';
import { createTimedServer, type ServerTimeoutOptions } from '../http/server-timeouts.js';

/** The service's timeouts, as `createPlantServer` takes them. */
export type FastifyServerTimeouts = ServerTimeoutOptions;

/** The slice of Fastify's server options these set (a plain object, so fastify stays a type-only import here). */
export interface PlantStoreFastifyServerOptions {
  readonly serverFactory: (handler: RequestListener) => Server;
  readonly clientErrorHandler: (error: Error, socket: Socket) => void;
}

/**
 * Options for `Fastify({ ...fastifyServerOptions() })`: the server `createPlantServer` would build, with the service's
 * timeouts (Fastify's default has no request timeout at all, so a stalled upload would hold its connection forever, and
 * its connection timeout would cut a slow answer mid-request), and the API's error shape for the requests node:http
 * refuses itself, a stalled API upload's 408 included. A plugin cannot set these: they belong to the server.
 */
export function fastifyServerOptions(timeouts: FastifyServerTimeouts = {}): PlantStoreFastifyServerOptions {
  return { serverFactory: (handler) => createTimedServer(handler, timeouts), clientErrorHandler: handleClientError };
}
