import type { IncomingMessage, ServerResponse } from 'node:http';
import { silentLogger } from '@plant-store/core/adapter';
import { HttpError } from './http-error.js';
import { requestId } from './request-id.js';
import { sendError } from './send-error.js';

/** A 417 in the error shape for an `Expect` other than `100-continue`, closing the connection: the held-back body stays unread. */
export function rejectExpectation(req: IncomingMessage, res: ServerResponse): void {
  const message = 'unsupported Expect header: only 100-continue is understood';
  // A 4xx is never logged, so no logger is needed.
  sendError(res, requestId(req.headers['x-request-id']), new HttpError(417, message), silentLogger, true);
}
