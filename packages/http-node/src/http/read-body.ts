import type { IncomingMessage } from 'node:http';
import { HttpError } from './http-error.js';

/** Default body limit of the service: 64 KiB. */
export const DEFAULT_MAX_BODY_BYTES = 65_536;

// Stateless when used without `stream: true`, so one decoder serves every request.
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Reads the request body as UTF-8 text, refusing more than `maxBytes`.
 *
 * A declared `content-length` over the limit is refused before reading a
 * byte; otherwise bytes are counted as chunks arrive (chunked uploads have no
 * length) and the read stops at the first chunk that crosses the limit, so
 * the server never buffers more than `maxBytes` plus one chunk. The caller
 * answers 413 with `connection: close` and node:http drops the rest.
 *
 * Rejects with `HttpError` 413 (too large), 408 (the body stopped arriving:
 * the connection went silent, or the request timeout passed; see
 * `bodyTimedOut`) or 400 (invalid UTF-8, or the client went away before the
 * end).
 */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<string> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > maxBytes) return Promise.reject(tooLarge(maxBytes));
  // The client may have gone while the request was being authenticated:
  // 'close' has then already fired and would never reach the listener below.
  if (req.destroyed) return Promise.reject(endedEarly());
  if (req.readableFlowing === null && isWhollyBuffered(req, declared)) return bufferedBody(req, maxBytes);
  return new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (outcome: () => string): void => {
      unlisten();
      try {
        resolve(outcome());
      } catch (error) {
        reject(error);
      }
    };
    const fail = (error: HttpError) =>
      settle(() => {
        throw error;
      });
    const unlisten = listen(req, {
      data: (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) fail(tooLarge(maxBytes));
        else chunks.push(chunk);
      },
      end: () => settle(() => decodeUtf8(chunks, size)),
      // 'close' without 'end' means the client aborted mid-body ('error' is
      // followed by 'close', so this one listener covers both).
      close: () => fail(endedEarly()),
      // node:http emits 'timeout' on an incomplete request when its socket goes
      // silent (server.timeout); with a listener here it leaves the socket open
      // so the 408 can still be written, logged as what was really sent.
      timeout: () => fail(new HttpError(408, 'the request body did not arrive in time', ['connection', 'close'])),
    });
  });
}

/**
 * Whether every byte of the body is in the request's buffer: the request is
 * complete, or it declared a length and that many bytes are buffered.
 * node:http parses a body that came in the packets of the head before the
 * handler's first `await` resumes, but marks the request complete only a
 * turn of the event loop later; waiting for that would cost four listeners
 * and a trip through the stream machinery on nearly every write.
 */
function isWhollyBuffered(req: IncomingMessage, declared: string | undefined): boolean {
  if (req.complete) return true;
  return declared !== undefined && req.headers['transfer-encoding'] === undefined && req.readableLength === Number(declared);
}

/**
 * The body of a request that arrived whole before anyone read it (a small
 * body in the packets of its head, the usual case): node:http has parsed it
 * into the request's buffer already, so it is taken from there at once,
 * without listeners, timeouts or a turn of the stream machinery.
 */
function bufferedBody(req: IncomingMessage, maxBytes: number): Promise<string> {
  // Paused and never read: one read() hands over everything buffered.
  const body = req.read() as Buffer | null;
  const size = body === null ? 0 : body.length;
  if (size > maxBytes) return Promise.reject(tooLarge(maxBytes));
  try {
    return Promise.resolve(body === null ? '' : decodeUtf8([body], size));
  } catch (error) {
    return Promise.reject(error as Error);
  }
}

/** Adds the handlers to the request; returns the function that removes them all. */
function listen(req: IncomingMessage, handlers: Record<string, (chunk: Buffer) => void>): () => void {
  const entries = Object.entries(handlers);
  for (const [event, handler] of entries) req.on(event, handler);
  return () => {
    for (const [event, handler] of entries) req.off(event, handler);
  };
}

function decodeUtf8(chunks: readonly Buffer[], size: number): string {
  try {
    return UTF8.decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size));
  } catch {
    throw new HttpError(400, 'body is not valid UTF-8');
  }
}

/**
 * Hands a request timeout that node:http detected mid-body (a client
 * trickling its upload) to the `readBody` waiting for it, so the 408 goes
 * through the normal error path; `false` when no body read is waiting.
 */
export function bodyTimedOut(req: IncomingMessage): boolean {
  return req.listenerCount('timeout') > 0 && req.emit('timeout');
}

function tooLarge(maxBytes: number): HttpError {
  return new HttpError(413, `body must not exceed ${maxBytes} bytes`);
}

function endedEarly(): HttpError {
  return new HttpError(400, 'the request body ended early');
}

/**
 * True when answering now would leave a request body unread that may be
 * large: one of unknown length (chunked) or declared over `maxBodyBytes`.
 * Such an answer should close the connection; node:http would otherwise read
 * (and discard) the whole upload to keep the connection alive. A small
 * declared body is cheap to discard and keeps the connection.
 */
export function leavesLargeBodyUnread(req: IncomingMessage, maxBodyBytes: number): boolean {
  if (req.complete) return false;
  const declared = req.headers['content-length'];
  return declared === undefined ? req.headers['transfer-encoding'] !== undefined : Number(declared) > maxBodyBytes;
}
