import type { IncomingMessage } from 'node:http';
import { HttpError } from './http-error.js';

/** Where body parsers leave what they read: a `verify` hook's `rawBody`, or `express.raw()`'s `body`. */
interface ParsedRequest extends IncomingMessage {
  readonly rawBody?: unknown;
  readonly body?: unknown;
}

/**
 * The bytes of a body another middleware read before the API could, when it kept them (ids stay exact: they are
 * parsed again here, not taken from its parse); otherwise a 500 telling the host's developer how to mount the API.
 */
export function bodyReadElsewhere(req: IncomingMessage): Buffer {
  const { rawBody, body } = req as ParsedRequest;
  if (Buffer.isBuffer(rawBody)) return rawBody;
  if (Buffer.isBuffer(body)) return body;
  throw new HttpError(
    500,
    'the request body was already read by another middleware (a body parser such as express.json()): mount the plant API before body parsers, or keep the raw body as a Buffer in req.rawBody',
  );
}
