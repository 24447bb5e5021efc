import type { IncomingMessage } from 'node:http';
import { JsonDuplicateKeyError, parseJson } from '@plant-store/core/adapter';
import { HttpError } from './http-error.js';
import { isJsonContentType } from './json-content-type.js';
import { readBody } from './read-body.js';

/** Reads and parses a JSON request body (415 unless `application/json`); numbers stay exact (the core's lossless parser). */
export async function readJsonBody(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  if (!isJsonContentType(req.headers['content-type'])) {
    throw new HttpError(415, 'content-type must be application/json');
  }
  const text = await readBody(req, maxBytes);
  try {
    return parseJson(text);
  } catch (error) {
    // Named, so a client that sent a key twice learns which one.
    if (error instanceof JsonDuplicateKeyError) throw new HttpError(400, `body is not valid JSON: ${error.message}`);
    // SyntaxError, but also a RangeError from absurdly deep nesting.
    throw new HttpError(400, 'body is not valid JSON');
  }
}

/** No body yields `undefined` whatever the content type: generated clients label an absent body JSON too. */
export function readOptionalJsonBody(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  const { headers } = req;
  const empty = headers['transfer-encoding'] === undefined && (headers['content-length'] === undefined || headers['content-length'] === '0');
  return empty ? Promise.resolve(undefined) : readJsonBody(req, maxBytes);
}
