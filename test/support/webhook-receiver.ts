import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the receiver saw it: raw body text and headers, and when it arrived. */
export interface ReceivedWebhook {
  readonly path: string;
  readonly method: string;
  readonly headers: Record<string, string>;
  readonly body: string;
  readonly at: number;
}

/** What the receiver answers: a status (and headers, and a body), or `'hang'` to never answer. */
export type ReceiverReply = { status: number; headers?: Record<string, string>; body?: string | Buffer } | 'hang';

export interface WebhookReceiver {
  readonly port: number;
  /** `http://127.0.0.1:<port><path>`. */
  url(path?: string): string;
  readonly received: ReceivedWebhook[];
  /** Requests whose path is `path`. */
  at(path: string): ReceivedWebhook[];
  /** Changes how later requests are answered. */
  reply(handler: (request: ReceivedWebhook, index: number) => ReceiverReply): void;
  /** Stops listening and drops every connection (hanging ones included). */
  close(): Promise<void>;
  /** Listens again on the same port. */
  open(): Promise<void>;
  /** Waits until `count` requests arrived (at `path` when given). */
  waitFor(count: number, options?: { path?: string; timeoutMs?: number }): Promise<ReceivedWebhook[]>;
}

/**
 * A real webhook receiver on 127.0.0.1 (port 0 unless given) that records
 * every request byte for byte. Answers 204 unless told otherwise.
 */
export async function startReceiver(port = 0): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  let handler: (request: ReceivedWebhook, index: number) => ReceiverReply = () => ({ status: 204 });
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers[name] = value;
      const request = { path: req.url ?? '', method: req.method ?? '', headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      received.push(request);
      const reply = handler(request, received.length - 1);
      if (reply === 'hang') return;
      res.writeHead(reply.status, reply.headers).end(reply.body);
    });
  });
  const listen = (on: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(on, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  await listen(port);
  const actualPort = (server.address() as AddressInfo).port;
  return {
    port: actualPort,
    url: (path = '/hook') => `http://127.0.0.1:${actualPort}${path}`,
    received,
    at: (path) => received.filter((request) => request.path === path),
    reply(next) {
      handler = next;
    },
    async close() {
      if (!server.listening) return;
      const closed = new Promise((resolve) => server.close(resolve));
      server.closeAllConnections();
      await closed;
    },
    open: () => listen(actualPort),
    async waitFor(count, options = {}) {
      const matching = () => (options.path === undefined ? received : received.filter((request) => request.path === options.path));
      const deadline = Date.now() + (options.timeoutMs ?? 10_000);
      while (matching().length < count) {
        if (Date.now() > deadline) throw new Error(`receiver got ${matching().length} of ${count} webhooks in time`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      return matching();
    },
  };
}

/** A port on 127.0.0.1 that nothing listens on (taken, noted, released). */
export async function reservePort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
