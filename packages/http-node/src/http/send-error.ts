import type { ServerResponse } from 'node:http';
import type { Logger } from '@plant-store/core/adapter';
import { errorBody, errorResponse } from './error-response.js';
import { sendJson } from './send-json.js';

/** Answers in the error shape (5xx logged with their detail); once headers are out, aborts so the response cannot look complete. */
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

/** For the log only: stack and cause included. */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const text = error.stack ?? `${error.name}: ${error.message}`;
  return error.cause === undefined ? text : `${text}\ncaused by: ${describeError(error.cause)}`;
}
