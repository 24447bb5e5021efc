import type { ServerResponse } from 'node:http';

/** Headers go to `writeHead` as a flat array, which node:http writes without building a header object. */
export function sendJson(res: ServerResponse, requestId: string, status: number, body: string, extraHeaders?: readonly string[]): void {
  const headers = ['content-type', 'application/json', 'content-length', String(Buffer.byteLength(body)), 'x-request-id', requestId];
  if (extraHeaders !== undefined) for (const item of extraHeaders) headers.push(item);
  res.writeHead(status, headers);
  res.end(body);
}

export function sendNoContent(res: ServerResponse, requestId: string): void {
  res.writeHead(204, ['x-request-id', requestId]);
  res.end();
}
