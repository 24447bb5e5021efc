import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

// A real webhook receiver for the suites and the benchmark alike (no vitest
// in here: bench imports it).

/** One request as the receiver saw it: raw body text and headers, and when it arrived. */
export interface ReceivedWebhook {
  readonly path: string;
  readonly method: string;
  readonly headers: Record<string, string>;
  readonly body: string;
  /** `Date.now()` when the whole request had arrived. */
  readonly at: number;
  /** `performance.now()` when the request head arrived (the start of the attempt as the receiver sees it). */
  readonly headAt: number;
}

/** What the receiver answers: a status (and headers, and a body), or `'hang'` to never answer. */
export type ReceiverReply = { status: number; headers?: Record<string, string>; body?: string | Buffer } | 'hang';

export interface WebhookReceiver {
  readonly port: number;
  /** `http://127.0.0.1:<port><path>`. */
  url(path?: string): string;
  /** A fresh `whsec_` secret (32 random bytes) for a subscription to this receiver. */
  readonly secret: string;
  readonly received: ReceivedWebhook[];
  /** Requests whose path is `path`. */
  at(path: string): ReceivedWebhook[];
  /** The first request of each message (`webhook-id`), in arrival order. */
  readonly messages: ReadonlyMap<string, ReceivedWebhook>;
  /** Requests beyond the first for the same `webhook-id` (retries, duplicates). */
  duplicates(): number;
  /**
   * Requests that arrived while another one with the same `webhook-id` was
   * still in flight (head received, answer not finished): two dispatchers
   * working on one delivery at once, which a lease must prevent.
   */
  concurrentDuplicates(): number;
  /** Most requests for one `webhook-id` in flight at the same time (1 when never overlapping). */
  maxInFlightPerId(): number;
  /** Changes how later requests are answered. @default 204 */
  reply(handler: (request: ReceivedWebhook, index: number) => ReceiverReply): void;
  /** Stops listening and drops every connection (hanging ones included). */
  close(): Promise<void>;
  /** Listens again on the same port. */
  open(): Promise<void>;
  /** Waits until `count` requests arrived (at `path` when given); resolves with them. @default timeoutMs 10000 */
  waitFor(count: number, options?: { path?: string; timeoutMs?: number }): Promise<ReceivedWebhook[]>;
  /** Waits until `count` distinct messages (`webhook-id`s) arrived. @default timeoutMs 10000 */
  waitForMessages(count: number, options?: { timeoutMs?: number }): Promise<void>;
}

/**
 * A real webhook receiver on 127.0.0.1 (port 0 unless given) that records
 * every request byte for byte. Answers 204 unless told otherwise.
 */
export async function startReceiver(port = 0): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const messages = new Map<string, ReceivedWebhook>();
  const inFlight = new Map<string, number>();
  const arrivals = new Set<() => void>();
  let duplicates = 0;
  let concurrentDuplicates = 0;
  let maxInFlightPerId = 0;
  let handler: (request: ReceivedWebhook, index: number) => ReceiverReply = () => ({ status: 204 });
  const server = http.createServer((req, res) => {
    const headAt = performance.now();
    const id = String(req.headers['webhook-id'] ?? '');
    // In flight from the request head until the answer is finished or the connection drops.
    const inFlightNow = (inFlight.get(id) ?? 0) + 1;
    if (inFlightNow > 1) concurrentDuplicates++;
    maxInFlightPerId = Math.max(maxInFlightPerId, inFlightNow);
    inFlight.set(id, inFlightNow);
    res.once('close', () => {
      const left = inFlight.get(id)! - 1;
      if (left === 0) inFlight.delete(id);
      else inFlight.set(id, left);
    });
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers[name] = value;
      const request = { path: req.url ?? '', method: req.method ?? '', headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now(), headAt };
      received.push(request);
      if (messages.has(id)) duplicates++;
      else messages.set(id, request);
      for (const arrived of [...arrivals]) arrived();
      const reply = handler(request, received.length - 1);
      if (reply === 'hang') return;
      res.writeHead(reply.status, reply.headers).end(reply.body);
    });
  });
  server.keepAliveTimeout = 60_000;
  const listen = (on: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(on, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  /** Resolves once `done()` holds, checked at every arrival; rejects after `timeoutMs` with `describe()`. */
  const until = (done: () => boolean, timeoutMs: number, describe: () => string) =>
    new Promise<void>((resolve, reject) => {
      if (done()) return resolve();
      const check = () => {
        if (!done()) return;
        clearTimeout(timer);
        arrivals.delete(check);
        resolve();
      };
      const timer = setTimeout(() => {
        arrivals.delete(check);
        reject(new Error(describe()));
      }, timeoutMs);
      arrivals.add(check);
    });
  await listen(port);
  const actualPort = (server.address() as AddressInfo).port;
  return {
    port: actualPort,
    url: (path = '/hook') => `http://127.0.0.1:${actualPort}${path}`,
    secret: `whsec_${randomBytes(32).toString('base64')}`,
    received,
    at: (path) => received.filter((request) => request.path === path),
    messages,
    duplicates: () => duplicates,
    concurrentDuplicates: () => concurrentDuplicates,
    maxInFlightPerId: () => maxInFlightPerId,
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
      const timeoutMs = options.timeoutMs ?? 10_000;
      await until(
        () => matching().length >= count,
        timeoutMs,
        () => `receiver got ${matching().length} of ${count} webhooks in time`,
      );
      return matching();
    },
    waitForMessages(count, { timeoutMs = 10_000 } = {}) {
      return until(
        () => messages.size >= count,
        timeoutMs,
        () => `only ${messages.size} of ${count} webhook deliveries arrived within ${timeoutMs} ms`,
      );
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
