import type { IncomingMessage } from 'node:http';
import { bodyReadElsewhere } from './body-read-elsewhere.js';
import { HttpError } from './http-error.js';

export const DEFAULT_MAX_BODY_BYTES = 65_536;

// Stateless when used without `stream: true`, so one decoder serves every request.
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** Reads the body as UTF-8, refusing more than `maxBytes` by its declared length or at the first chunk crossing it (413); 408 or 400 otherwise. */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<string> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > maxBytes) return Promise.reject(tooLarge(maxBytes));
  // Read to the end before the API got it: a host's body parser ran first.
  if (req.readableEnded) return alreadyRead(req, maxBytes);
  // The client may have gone during authentication: 'close' has then already fired.
  if (req.destroyed) return Promise.reject(endedEarly());
  if (req.readableFlowing === null && isWhollyBuffered(req, declared)) return bufferedBody(req, maxBytes);
  return new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const handlers: Record<string, (chunk: Buffer) => void> = {
      data: (chunk) => {
        size += chunk.length;
        if (size > maxBytes) fail(tooLarge(maxBytes));
        else chunks.push(chunk);
      },
      end: () => {
        unlisten();
        try {
          resolve(decodeUtf8(chunks, size));
        } catch (error) {
          reject(error);
        }
      },
      // 'close' without 'end': the client aborted mid-body ('error' is followed by 'close').
      close: () => fail(endedEarly()),
      // node:http emits 'timeout' on an incomplete request whose socket went silent; a listener keeps the socket open for the 408.
      timeout: () => fail(new HttpError(408, 'the request body did not arrive in time', ['connection', 'close'])),
    };
    const unlisten = () => {
      for (const [event, handler] of Object.entries(handlers)) req.off(event, handler);
    };
    const fail = (error: HttpError) => {
      unlisten();
      reject(error);
    };
    for (const [event, handler] of Object.entries(handlers)) req.on(event, handler);
  });
}

/** Every byte of the body is buffered: node:http marks a body that came with the head complete only a turn later. */
function isWhollyBuffered(req: IncomingMessage, declared: string | undefined): boolean {
  if (req.complete) return true;
  return declared !== undefined && req.headers['transfer-encoding'] === undefined && req.readableLength === Number(declared);
}

async function bufferedBody(req: IncomingMessage, maxBytes: number): Promise<string> {
  // Paused and never read: one read() hands over everything buffered.
  const body = (req.read() as Buffer | null) ?? Buffer.alloc(0);
  if (body.length > maxBytes) throw tooLarge(maxBytes);
  return decodeUtf8([body], body.length);
}

async function alreadyRead(req: IncomingMessage, maxBytes: number): Promise<string> {
  const body = bodyReadElsewhere(req);
  if (body.length > maxBytes) throw tooLarge(maxBytes);
  return decodeUtf8([body], body.length);
}

function decodeUtf8(chunks: readonly Buffer[], size: number): string {
  try {
    return UTF8.decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size));
  } catch {
    throw new HttpError(400, 'body is not valid UTF-8');
  }
}

/** Hands a request timeout detected mid-body to the waiting `readBody`, so the 408 takes the normal error path; `false` when none waits. */
export function bodyTimedOut(req: IncomingMessage): boolean {
  return req.listenerCount('timeout') > 0 && req.emit('timeout');
}

function tooLarge(maxBytes: number): HttpError {
  return new HttpError(413, `body must not exceed ${maxBytes} bytes`);
}

function endedEarly(): HttpError {
  return new HttpError(400, 'the request body ended early');
}

/** Answering now would leave a possibly large body unread: close the connection then, or node:http reads and discards the whole upload. */
export function leavesLargeBodyUnread(req: IncomingMessage, maxBodyBytes: number): boolean {
  if (req.complete) return false;
  const declared = req.headers['content-length'];
  return declared === undefined ? req.headers['transfer-encoding'] !== undefined : Number(declared) > maxBodyBytes;
}
