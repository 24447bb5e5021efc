import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { webhookHttpTransport } from './webhook-http-transport.js';

interface Received {
  readonly method: string;
  readonly url: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
  readonly socket: Socket;
}

const servers: http.Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A receiver on 127.0.0.1:0 that records raw requests and answers with `handle`. */
async function receiver(handle: (req: http.IncomingMessage, res: http.ServerResponse, received: Received[]) => void) {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), socket: req.socket });
      handle(req, res, received);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { received, port, url: `http://127.0.0.1:${port}` };
}

const request = (url: string, overrides: Partial<{ body: string; timeoutMs: number; headers: Record<string, string>; signal: AbortSignal }> = {}) => ({
  url,
  headers: { 'content-type': 'application/json', 'user-agent': 'plant-store/test', 'webhook-id': 'msg_1', ...overrides.headers },
  body: overrides.body ?? '{"id":9223372036854775807,"name":"Fern 🌿"}',
  timeoutMs: overrides.timeoutMs ?? 2_000,
  signal: overrides.signal ?? new AbortController().signal,
});
const delivered = (statusCode: number) => ({ kind: 'delivered', statusCode });

describe('webhookHttpTransport', () => {
  it('POSTs the exact body with the given headers and resolves with delivered on a 2xx', async () => {
    const { received, url } = await receiver((_, res) => res.writeHead(204).end());
    const response = await webhookHttpTransport().send(request(`${url}/hook?x=1`));
    expect(response).toEqual(delivered(204));
    expect(received).toHaveLength(1);
    const [hit] = received;
    expect(hit!.method).toBe('POST');
    expect(hit!.url).toBe('/hook?x=1');
    expect(hit!.body).toBe('{"id":9223372036854775807,"name":"Fern 🌿"}');
    expect(hit!.headers['content-type']).toBe('application/json');
    expect(hit!.headers['user-agent']).toBe('plant-store/test');
    expect(hit!.headers['webhook-id']).toBe('msg_1');
    expect(hit!.headers['content-length']).toBe(String(Buffer.byteLength(hit!.body)));
  });

  it('adds its default user agent only when the request has none', async () => {
    const { received, url } = await receiver((_, res) => res.end());
    const transport = webhookHttpTransport({ userAgent: 'plant-store/9.9.9' });
    await transport.send(request(url));
    const bare = request(url);
    const { 'user-agent': _, ...headers } = bare.headers;
    await transport.send({ ...bare, headers });
    expect(received.map((hit) => hit.headers['user-agent'])).toEqual(['plant-store/test', 'plant-store/9.9.9']);
  });

  it('reuses kept-alive connections', async () => {
    const { received, url } = await receiver((_, res) => res.end('ok'));
    const transport = webhookHttpTransport();
    for (let i = 0; i < 3; i++) expect(await transport.send(request(url))).toEqual({ ...delivered(200), response: 'ok' });
    expect(new Set(received.map((hit) => hit.socket)).size).toBe(1);
  });

  it('maps 429 and 503 with Retry-After to a retry not before that time, 410 to gone, other statuses to a retry', async () => {
    const { url } = await receiver((req, res) => {
      if (req.url === '/busy') res.writeHead(429, { 'retry-after': '7' }).end('slow down');
      else if (req.url === '/down') res.writeHead(503, { 'retry-after': 'Wed, 21 Oct 2099 07:28:00 GMT' }).end();
      else if (req.url === '/gone') res.writeHead(410).end();
      else res.writeHead(500, { 'retry-after': '7' }).end();
    });
    const transport = webhookHttpTransport();
    const before = Date.now();
    const busy = await transport.send(request(`${url}/busy`));
    expect(busy).toMatchObject({ kind: 'retry', statusCode: 429, reason: 'receiver answered 429' });
    const notBefore = (busy as { notBefore?: number }).notBefore!;
    expect(notBefore).toBeGreaterThanOrEqual(before + 7_000);
    expect(notBefore).toBeLessThanOrEqual(Date.now() + 7_000);
    expect(await transport.send(request(`${url}/down`))).toEqual({
      kind: 'retry',
      statusCode: 503,
      reason: 'receiver answered 503',
      notBefore: Date.parse('Wed, 21 Oct 2099 07:28:00 GMT'),
    });
    expect(await transport.send(request(`${url}/gone`))).toEqual({ kind: 'gone', statusCode: 410, reason: 'receiver answered 410 Gone: no more attempts' });
    expect(await transport.send(request(`${url}/error`))).toEqual({ kind: 'retry', statusCode: 500, reason: 'receiver answered 500' });
  });

  it('does not follow redirects', async () => {
    const { received, url } = await receiver((req, res) => {
      if (req.url === '/old') res.writeHead(307, { location: '/new' }).end();
      else res.writeHead(200).end();
    });
    expect(await webhookHttpTransport().send(request(`${url}/old`))).toEqual({
      kind: 'retry',
      statusCode: 307,
      reason: 'receiver answered 307 (redirects are not followed)',
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(received.map((hit) => hit.url)).toEqual(['/old']);
  });

  it('times out on a receiver that never answers', async () => {
    const { received, url } = await receiver(() => {});
    const started = Date.now();
    const response = await webhookHttpTransport().send(request(url, { timeoutMs: 150 }));
    expect(response).toEqual({ kind: 'retry', reason: 'timeout after 150 ms' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(received).toHaveLength(1);
  });

  it('treats a timeout beyond what a Node timer holds as very long, not as immediate', async () => {
    const { url } = await receiver((_, res) => setTimeout(() => res.writeHead(204).end(), 50));
    const thirtyDays = 30 * 24 * 3_600_000;
    expect(await webhookHttpTransport().send(request(url, { timeoutMs: thirtyDays }))).toEqual(delivered(204));
  });

  it('times out on a receiver that accepts the connection but never reads', async () => {
    const { createServer } = await import('node:net');
    const sockets: Socket[] = [];
    const silent = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    try {
      expect(await webhookHttpTransport().send(request(`http://127.0.0.1:${port}/`, { timeoutMs: 100 }))).toEqual({
        kind: 'retry',
        reason: 'timeout after 100 ms',
      });
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('reports a refused connection', async () => {
    const { url } = await receiver(() => {});
    const port = new URL(url).port;
    for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
    const response = await webhookHttpTransport().send(request(`http://127.0.0.1:${port}/`));
    expect(response).toEqual({ kind: 'retry', reason: expect.stringMatching(/ECONNREFUSED/) });
  });

  it('keeps the first KiB of a huge or endless body, without waiting for the rest', async () => {
    const { url } = await receiver((req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      if (req.url === '/huge') res.end(Buffer.alloc(4 * 1024 * 1024, 'x'));
      else if (req.url === '/endless-long')
        res.write('y'.repeat(2000)); // more than a KiB, and never ends
      else res.write('x'.repeat(1000)); // less than a KiB, and never ends
    });
    const transport = webhookHttpTransport();
    expect(await transport.send(request(`${url}/huge`))).toEqual({ ...delivered(200), response: 'x'.repeat(1024) });
    // The first KiB is all it waits for: a 60 s deadline is never reached.
    expect(await transport.send(request(`${url}/endless-long`, { timeoutMs: 60_000 }))).toEqual({ ...delivered(200), response: 'y'.repeat(1024) });
    // Less than a KiB and no end: what came before the deadline.
    expect(await transport.send(request(`${url}/endless`, { timeoutMs: 100 }))).toEqual({ ...delivered(200), response: 'x'.repeat(1000) });
  });

  it('keeps the answer of a failure too, cut on a UTF-8 boundary; an empty body leaves it out', async () => {
    const { url } = await receiver((req, res) => {
      if (req.url === '/empty') res.writeHead(500).end();
      else res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end(`${'a'.repeat(1022)}🌵 and more`);
    });
    const transport = webhookHttpTransport();
    expect(await transport.send(request(`${url}/emoji`))).toEqual({
      kind: 'retry',
      statusCode: 500,
      reason: 'receiver answered 500',
      response: 'a'.repeat(1022),
    });
    expect(await transport.send(request(`${url}/empty`))).toEqual({ kind: 'retry', statusCode: 500, reason: 'receiver answered 500' });
  });

  it('never rejects on a bad url: it can never work, so it is failed', async () => {
    const transport = webhookHttpTransport();
    expect(await transport.send(request('not a url'))).toEqual({ kind: 'failed', reason: 'invalid url' });
    expect(await transport.send(request('ftp://127.0.0.1/x'))).toEqual({ kind: 'failed', reason: 'unsupported protocol ftp:' });
  });

  it('ends a hanging attempt at once when its signal aborts, closing the connection', async () => {
    let closed!: () => void;
    const connectionClosed = new Promise<void>((resolve) => (closed = resolve));
    const { received, url } = await receiver((req) => req.socket.once('close', () => closed()));
    const controller = new AbortController();
    const sending = webhookHttpTransport().send(request(url, { timeoutMs: 600_000, signal: controller.signal }));
    await vi.waitFor(() => expect(received.length).toBeGreaterThan(0));
    controller.abort();
    expect(await sending).toEqual({ kind: 'retry', reason: 'aborted: the dispatcher stopped' });
    await connectionClosed;
    // Already aborted: nothing is sent.
    expect(await webhookHttpTransport().send(request(url, { signal: controller.signal }))).toEqual({ kind: 'retry', reason: 'aborted before sending' });
    expect(received).toHaveLength(1);
  });

  it('retries once on a fresh socket when a reused keep-alive socket is reset', async () => {
    const perSocket = new WeakMap<Socket, number>();
    const { received, url } = await receiver((req, res) => {
      const count = (perSocket.get(req.socket) ?? 0) + 1;
      perSocket.set(req.socket, count);
      // The second request on a connection is cut off, as by a receiver closing an idle socket just then.
      if (count === 2) req.socket.destroy();
      else res.end();
    });
    const transport = webhookHttpTransport();
    expect(await transport.send(request(url))).toEqual(delivered(200));
    expect(await transport.send(request(url))).toEqual(delivered(200));
    expect(received).toHaveLength(3);
    expect(received[2]!.socket).not.toBe(received[0]!.socket);
    // A fresh socket is not retried: the reset is reported.
    const { url: alwaysReset } = await receiver((req) => req.socket.destroy());
    expect(await webhookHttpTransport().send(request(alwaysReset))).toEqual({ kind: 'retry', reason: expect.stringMatching(/socket hang up|ECONNRESET/) });
  });
});
