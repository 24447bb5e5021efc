import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { silentLogger, type Logger, type PlantStore } from '@plant-store/core';
import { DEFAULT_MAX_BODY_BYTES, leavesLargeBodyUnread } from './http/read-body.js';
import { requestId } from './http/request-id.js';
import { describeError, sendError } from './http/send-error.js';
import { openapiDocument } from './openapi/openapi-document.js';
import type { Exchange, RouteContext } from './routes/route-context.js';
import { routeRequest } from './routes/route-request.js';
import { version as packageVersion } from './version.js';

export interface RequestListenerOptions {
  /** Largest accepted request body, in bytes; larger bodies get a 413. @default 65536 */
  readonly maxBodyBytes?: number;
  /** Receives one `request` line per request (method, path, status, durationMs, requestId) and server-side failures. Never tokens. @default silentLogger */
  readonly logger?: Logger;
  /** Version shown in the OpenAPI document. @default the package version */
  readonly version?: string;
}

/** A node:http request listener. */
export type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * The Plant Store HTTP API as a plain node:http listener: request in,
 * response out. It never listens, so it can be mounted in any server (see
 * `createPlantServer` for one with the right timeouts).
 */
export function createRequestListener(store: PlantStore, options: RequestListenerOptions = {}): RequestListener {
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  if (!Number.isSafeInteger(maxBodyBytes) || maxBodyBytes < 0) {
    throw new RangeError(`maxBodyBytes must be a non-negative integer, got ${maxBodyBytes}`);
  }
  const context: RouteContext = {
    store,
    logger: options.logger ?? silentLogger,
    maxBodyBytes,
    openapiJson: JSON.stringify(openapiDocument(options.version ?? packageVersion)),
  };
  return (req, res) => {
    void handleRequest(context, req, res);
  };
}

async function handleRequest(context: RouteContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const started = performance.now();
  const url = req.url ?? '/';
  const queryStart = url.indexOf('?');
  // The query string is left out of the log: it is user data and unbounded.
  const path = queryStart === -1 ? url : url.slice(0, queryStart);
  const exchange: Exchange = {
    req,
    res,
    requestId: requestId(req.headers['x-request-id']),
    query: queryStart === -1 ? '' : url.slice(queryStart + 1),
    head: req.method === 'HEAD',
  };
  try {
    try {
      await routeRequest(context, exchange, path);
    } catch (error) {
      sendError(res, exchange.requestId, error, context.logger, leavesLargeBodyUnread(req, context.maxBodyBytes));
    }
    const fields: Record<string, unknown> = {
      method: req.method,
      path,
      status: res.statusCode,
      durationMs: Math.round((performance.now() - started) * 10) / 10,
      requestId: exchange.requestId,
    };
    // A response cut short: client gone, or storage failed mid-stream.
    if (!res.writableEnded) fields.aborted = true;
    context.logger.info('request', fields);
  } catch (error) {
    // Only reached if answering the error or logging itself threw. The
    // listener's promise is not awaited by anyone: a rejection here would be
    // unhandled and end the process.
    lastResort(context.logger, res, error);
  }
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
