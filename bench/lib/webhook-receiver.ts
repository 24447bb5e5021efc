import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * `ok`: answer 200 at once (keep-alive). `hold`: read the request and never
 * answer, so a dispatcher's attempts stay in flight until its timeout.
 */
export type ReceiverMode = 'ok' | 'hold';

/** One delivery as it arrived. */
export interface Arrival {
  /** performance.now() when the request head arrived (= start of the attempt as seen by the receiver). */
  readonly at: number;
  readonly body: string;
  readonly headers: IncomingHttpHeaders;
}

export interface WebhookReceiver {
  readonly url: string;
  /** A fresh `whsec_` secret for the subscription (32 random bytes). */
  readonly secret: string;
  /** First arrival per `webhook-id`. */
  readonly arrivals: ReadonlyMap<string, Arrival>;
  /** Requests beyond the first for the same `webhook-id` (retries, duplicates). */
  duplicates(): number;
  /**
   * Requests that arrived while another request with the same `webhook-id`
   * was still in flight (head received, answer not yet finished): two
   * dispatchers working on one delivery at once, which a lease must prevent.
   */
  concurrentDuplicates(): number;
  /** Most requests for one `webhook-id` seen in flight at the same time (1 when never overlapping). */
  maxInFlightPerId(): number;
  /** Resolves when `count` distinct deliveries have arrived, or rejects after `timeoutMs`. */
  waitFor(count: number, timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

/** A loopback webhook receiver on an ephemeral port. */
export async function startWebhookReceiver(mode: ReceiverMode): Promise<WebhookReceiver> {
  const arrivals = new Map<string, Arrival>();
  const sockets = new Set<Socket>();
  let duplicates = 0;
  let concurrentDuplicates = 0;
  let maxInFlightPerId = 0;
  const inFlight = new Map<string, number>();
  let waiter: { count: number; resolve: () => void } | undefined;
  const server = createServer((req, res) => {
    const at = performance.now();
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
      if (arrivals.has(id)) duplicates++;
      else arrivals.set(id, { at, body: Buffer.concat(chunks).toString('utf8'), headers: req.headers });
      if (waiter && arrivals.size >= waiter.count) waiter.resolve();
      if (mode === 'ok') res.writeHead(200, { 'content-length': '0' }).end();
    });
  });
  server.keepAliveTimeout = 60_000;
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/plants`,
    secret: `whsec_${randomBytes(32).toString('base64')}`,
    arrivals,
    duplicates: () => duplicates,
    concurrentDuplicates: () => concurrentDuplicates,
    maxInFlightPerId: () => maxInFlightPerId,
    waitFor(count, timeoutMs) {
      if (arrivals.size >= count) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiter = undefined;
          reject(new Error(`only ${arrivals.size} of ${count} webhook deliveries arrived within ${timeoutMs} ms`));
        }, timeoutMs);
        waiter = {
          count,
          resolve: () => {
            clearTimeout(timer);
            waiter = undefined;
            resolve();
          },
        };
      });
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
