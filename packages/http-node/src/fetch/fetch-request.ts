import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import type { ReadableStream as NodeWebReadableStream } from 'node:stream/web';

/**
 * A web `Request` in the shape the routes read (method, url, lower-case headers, a body stream), so the fetch handler
 * runs the node listener's own handlers instead of a second copy of them.
 */
export function requestOf(request: Request, url: URL): IncomingMessage {
  const readElsewhere = request.bodyUsed || request.body?.locked === true;
  const body =
    request.body === null || readElsewhere
      ? Readable.from([], { objectMode: false })
      : // The DOM and node:stream/web declare the same stream twice.
        Readable.fromWeb(request.body as unknown as NodeWebReadableStream<Uint8Array>);
  // A host middleware read the body first: the routes then answer as under Express, with how to mount the API.
  if (readElsewhere) Object.defineProperty(body, 'readableEnded', { value: true });
  const headers: Record<string, string> = {};
  // Headers joins repeated fields with ", " and names come lower-case, as node:http gives them.
  for (const [name, value] of request.headers) headers[name] = value;
  // A body without a declared length (one built in-process) must still count as one, as a chunked upload does.
  if (request.body !== null && headers['content-length'] === undefined) headers['transfer-encoding'] ??= 'chunked';
  return Object.assign(body, {
    method: request.method,
    url: url.pathname + url.search,
    headers,
    httpVersion: '1.1',
    complete: false,
    socket: { encrypted: url.protocol === 'https:' },
  }) as unknown as IncomingMessage;
}
