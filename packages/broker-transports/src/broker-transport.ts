import { lookup } from 'node:dns/promises';
import {
  hasNonPublicLiteralHost,
  isPublicAddress,
  parseBrokerDestination,
  type BrokerDestination,
  type WebhookRequest,
  type WebhookSendOutcome,
  type WebhookTransport,
} from '@plant-store/core/adapter';
import { errorReason, type BrokerClient, type BrokerMessage } from './broker-connection.js';
import { BrokerPool } from './broker-pool.js';
import { orderedDestination } from './ordered-destination.js';

export interface BrokerTransportOptions {
  /** A connection no attempt has used for this long is closed, in ms. @default 60000 */
  readonly idleMs?: number;
}

/** A `WebhookTransport` that can be closed: it holds broker connections. */
export interface ClosableWebhookTransport extends WebhookTransport {
  /** Closes every connection; later sends are retried outcomes. Never rejects. */
  close(): Promise<void>;
}

const DESTINATION_NOT_ALLOWED = 'destination not allowed';

/** Thrown by the restricted connect when the broker's name resolves to a non-public address. */
class DestinationNotAllowed extends Error {
  constructor() {
    super(DESTINATION_NOT_ALLOWED);
  }
}

/** The transport for one kind of broker: parses the URL, publishes on a pooled connection, maps every failure to an outcome. */
export function brokerTransport<D extends BrokerDestination>(client: BrokerClient<D>, options: BrokerTransportOptions = {}): ClosableWebhookTransport {
  const pool = new BrokerPool<D>(guarded(client), options.idleMs ?? 60_000);
  return {
    send: (request) => send(request, client.kind, pool),
    close: () => pool.close(),
  };
}

async function send<D extends BrokerDestination>(request: WebhookRequest, kind: D['kind'], pool: BrokerPool<D>): Promise<WebhookSendOutcome> {
  const url = URL.canParse(request.url) ? new URL(request.url) : undefined;
  if (url === undefined) return { kind: 'failed', reason: 'invalid url' };
  const destination = parseBrokerDestination(url);
  if (typeof destination === 'string' || destination.kind !== kind) {
    return { kind: 'failed', reason: typeof destination === 'string' ? destination : `unsupported protocol ${url.protocol}` };
  }
  if (request.signal.aborted) return { kind: 'retry', reason: 'aborted before sending' };
  if (request.restrictDestination && hasNonPublicLiteralHost(url)) return { kind: 'failed', reason: DESTINATION_NOT_ALLOWED };
  const message = brokerMessage(request);
  // Restricted connections are pooled apart (the prefix keys them too): a pooled connection skips the address check.
  const connection = request.restrictDestination ? `restricted:${destination.connection}` : destination.connection;
  const target = orderedDestination(destination as D, request.orderingKey);
  const attempt = pool.with(connection, request.timeoutMs, (open) => open.publish(target, message));
  try {
    await deadline(attempt, request);
    return { kind: 'delivered' };
  } catch (error) {
    return { kind: 'retry', reason: withoutCredentials(errorReason(error), url) };
  }
}

function brokerMessage(request: WebhookRequest): BrokerMessage {
  const id = Object.entries(request.headers).find(([name]) => name.toLowerCase() === 'webhook-id')?.[1] ?? '';
  return { body: Buffer.from(request.body, 'utf8'), headers: request.headers, id };
}

/** Settles with `attempt`, or rejects at the request's timeout or when the dispatcher stops (the attempt goes on, unawaited). */
function deadline<T>(attempt: Promise<T>, request: WebhookRequest): Promise<T> {
  attempt.catch(() => {}); // settled later than the deadline: nobody awaits it any more
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => finish(() => reject(new Error('aborted: the dispatcher stopped')));
    // Node timers fire at once beyond 2^31-1 ms: clamp.
    const timer = setTimeout(() => finish(() => reject(new Error(`timeout after ${request.timeoutMs} ms`))), Math.min(request.timeoutMs, 2 ** 31 - 1));
    const finish = (settle: () => void) => {
      clearTimeout(timer);
      request.signal.removeEventListener('abort', onAbort);
      settle();
    };
    request.signal.addEventListener('abort', onAbort, { once: true });
    attempt.then(
      (value) => finish(() => resolve(value)),
      (error: unknown) => finish(() => reject(error)),
    );
  });
}

/** The client, with connections marked `restricted:` refused unless every address the host resolves to is public. */
function guarded<D extends BrokerDestination>(client: BrokerClient<D>): BrokerClient<D> {
  return {
    kind: client.kind,
    async connect(connection, options) {
      if (!connection.startsWith('restricted:')) return client.connect(connection, options);
      const target = connection.slice('restricted:'.length);
      const { hostname } = new URL(target);
      const name = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
      const addresses = await lookup(name, { all: true });
      // Checked before connecting, not on the socket: the drivers resolve names themselves.
      if (addresses.length === 0 || !addresses.every(({ address }) => isPublicAddress(address))) throw new DestinationNotAllowed();
      return client.connect(target, options);
    },
  };
}

/** The reason with the URL's user name and password cut out: a driver may quote them, and reasons are kept in the attempt log. */
function withoutCredentials(reason: string, url: URL): string {
  const secrets = [url.username, url.password]
    .flatMap((part) => [part, safeDecode(part)])
    .filter((part) => part.length > 0)
    .sort((a, b) => b.length - a.length);
  return secrets.reduce((text, secret) => text.split(secret).join('***'), reason);
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
