import type { Duplex } from 'node:stream';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { errorBody } from './error-response.js';
import { bodyTimedOut } from './read-body.js';

interface ClientError extends Error {
  readonly code?: string;
}

const STATUS_BY_CODE: Readonly<Record<string, readonly [number, string]>> = {
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout'],
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large'],
};

/** Requests the parser rejects get the error shape and an `x-request-id` too; the byte stream cannot be trusted after, so it closes. */
export function handleClientError(error: ClientError, socket: Duplex): void {
  const response = (socket as Duplex & { _httpMessage?: { headersSent?: boolean; req?: IncomingMessage } })._httpMessage;
  // A request whose body is still being read answers its own 408.
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT' && response?.req && !response.headersSent && bodyTimedOut(response.req)) return;
  // The client is gone, or a response is under way that another status line would corrupt.
  if (error.code === 'ECONNRESET' || !socket.writable || response?.headersSent) {
    socket.destroy();
    return;
  }
  const [status, reason] = STATUS_BY_CODE[error.code ?? ''] ?? [400, 'Bad Request'];
  const body = errorBody(status, status === 400 ? 'malformed HTTP request' : reason.toLowerCase());
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\n` +
      'content-type: application/json\r\n' +
      `content-length: ${Buffer.byteLength(body)}\r\n` +
      `x-request-id: ${randomUUID()}\r\n` +
      'connection: close\r\n\r\n' +
      body,
  );
}
