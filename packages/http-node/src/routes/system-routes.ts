import { errorBody } from '../http/error-response.js';
import { sendJson } from '../http/send-json.js';
import { withTimeout } from '../http/with-timeout.js';
import type { Exchange, RouteContext } from './route-context.js';

// No credentials: orchestrators and client generators call these without any.

const OK_BODY = '{"status":"ok"}';
const UNAVAILABLE_BODY = errorBody(503, 'storage unavailable');

const READY_TIMEOUT_MS = 2000;

export function healthz(_context: RouteContext, exchange: Exchange): void {
  sendJson(exchange.res, exchange.requestId, 200, OK_BODY);
}

/** Per listener, why storage was last not ready: probes come every few seconds, the log says it once per change. */
const notReadyReasons = new WeakMap<RouteContext, string>();

export async function readyz(context: RouteContext, exchange: Exchange): Promise<void> {
  try {
    await withTimeout(context.store.ready(), READY_TIMEOUT_MS, `storage did not answer within ${READY_TIMEOUT_MS} ms`);
  } catch (error) {
    // Expected while storage is down: a warning, not a request failure.
    const reason = error instanceof Error ? error.message : String(error);
    if (notReadyReasons.get(context) !== reason) {
      notReadyReasons.set(context, reason);
      context.logger.warn('storage is not ready', { requestId: exchange.requestId, error: reason });
    }
    sendJson(exchange.res, exchange.requestId, 503, UNAVAILABLE_BODY);
    return;
  }
  if (notReadyReasons.delete(context)) context.logger.info('storage is ready again', { requestId: exchange.requestId });
  sendJson(exchange.res, exchange.requestId, 200, OK_BODY);
}

export function openapi(context: RouteContext, exchange: Exchange): void {
  sendJson(exchange.res, exchange.requestId, 200, context.openapiJson);
}
