import type { IncomingMessage, ServerResponse } from 'node:http';
import { silentLogger } from '@plant-store/core/adapter';
import { HttpError } from './http-error.js';
import { requestId } from './request-id.js';
import { sendError } from './send-error.js';

/**
 * Answers a request whose `Expect` header is not `100-continue` (the only
 * expectation HTTP defines) with 417 in the error shape; node:http's own
 * answer has an empty body. The connection is closed: the client may send a
 * body it was asked to hold back, which is left unread.
 */
export function rejectExpectation(req: IncomingMessage, res: ServerResponse): void {
  const message = 'unsupported Expect header: only 100-continue is understood';
  // A 4xx is never logged, so no logger is needed.
  sendError(res, requestId(req.headers['x-request-id']), new HttpError(417, message), silentLogger, true);
}
