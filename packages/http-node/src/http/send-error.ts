import type { ServerResponse } from 'node:http';
import type { Logger } from '@plant-store/core/adapter';
import { errorBody, errorResponse } from './error-response.js';
import { sendJson } from './send-json.js';

/**
 * Answers a failure with the error shape. Server-side failures (5xx) are
 * logged with their detail; the caller only sees the generic message.
 *
 * With `closeConnection` (a large request body is left unread: auth failed
 * first, body too large, …) the answer says `connection: close`: node:http
 * then closes the socket after the response instead of reading (and
 * discarding) the rest of the upload to keep the connection alive.
 *
 * Once headers are out (a streamed list) the status can no longer change:
 * the only honest signal left is to abort the connection, so the client
 * sees a truncated response instead of a complete-looking one.
 */
export function sendError(res: ServerResponse, requestId: string, error: unknown, logger: Logger, closeConnection: boolean): void {
  const { status, message, headers } = errorResponse(error);
  if (status >= 500) logger.error('request failed', { requestId, status, error: describeError(error) });
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const extraHeaders = closeConnection ? [...headers, 'connection', 'close'] : headers;
  sendJson(res, requestId, status, errorBody(status, message), extraHeaders);
}

/** Server-side description of an error for the log (stack and cause included; never sent to clients). */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const text = error.stack ?? `${error.name}: ${error.message}`;
  return error.cause === undefined ? text : `${text}\ncaused by: ${describeError(error.cause)}`;
}
