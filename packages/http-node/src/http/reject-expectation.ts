import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorBody } from './error-response.js';
import { requestId } from './request-id.js';
import { sendJson } from './send-json.js';

/**
 * Answers a request whose `Expect` header is not `100-continue` (the only
 * expectation HTTP defines) with 417 in the error shape; node:http's own
 * answer has an empty body. The connection is closed: the client may send a
 * body it was asked to hold back, which is left unread.
 */
export function rejectExpectation(req: IncomingMessage, res: ServerResponse): void {
  const message = 'unsupported Expect header: only 100-continue is understood';
  sendJson(res, requestId(req.headers['x-request-id']), 417, errorBody(417, message), ['connection', 'close']);
}
