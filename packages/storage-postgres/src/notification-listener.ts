import pg from 'pg';

interface NotificationListenerOptions {
  /** A new, unconnected client; the listener connects it, and makes a new one after a loss. */
  readonly client: () => pg.Client;
  readonly channel: string;
}

/** Reconnection delays in ms: the first, doubled after each failure up to the longest. */
const MIN_BACKOFF_MS = 100;
const MAX_BACKOFF_MS = 5000;
/** How often the idle connection is checked with a query, so a silently dropped one is noticed. */
const HEARTBEAT_MS = 15_000;

const ignore = () => {};

/**
 * LISTENs on a dedicated connection while anybody is subscribed, reconnecting with backoff when it is lost. Calls every
 * subscriber with each notification's payload, and without one after each (re)connection, since notifications sent meanwhile are lost.
 */
export class NotificationListener {
  readonly #options: NotificationListenerOptions;
  readonly #subscribers = new Set<(payload?: string) => void>();
  #client: pg.Client | undefined;
  #retry: NodeJS.Timeout | undefined;
  #heartbeat: NodeJS.Timeout | undefined;
  #failures = 0;
  #closed = false;

  constructor(options: NotificationListenerOptions) {
    this.#options = options;
  }

  /** Calls `listener` with the payload of each notification, and without one after each (re)connection; returns the unsubscribe. */
  subscribe(listener: (payload?: string) => void): () => void {
    if (this.#closed) return ignore;
    const subscription = (payload?: string) => listener(payload);
    this.#subscribers.add(subscription);
    if (!this.#client && !this.#retry) this.#connect();
    return () => {
      this.#subscribers.delete(subscription);
      if (this.#subscribers.size === 0) this.#disconnect();
    };
  }

  /** Drops every subscriber and the connection. Idempotent. */
  close(): void {
    this.#closed = true;
    this.#subscribers.clear();
    this.#disconnect();
  }

  #connect(): void {
    this.#retry = undefined;
    const client = this.#options.client();
    this.#client = client;
    client.on('error', () => this.#lost(client));
    client.on('end', () => this.#lost(client));
    client.on('notification', (message) => {
      if (message.channel === this.#options.channel) this.#notify(message.payload ?? '');
    });
    client
      .connect()
      .then(() => client.query(`LISTEN ${pg.escapeIdentifier(this.#options.channel)}`))
      .then(() => {
        if (this.#client !== client) return;
        this.#failures = 0;
        this.#heartbeat = setInterval(() => client.query('SELECT 1').catch(() => this.#lost(client)), HEARTBEAT_MS);
        this.#heartbeat.unref();
        this.#notify();
      })
      .catch(() => this.#lost(client));
  }

  /** The connection failed or was lost: close what is left of it and try again later, while anybody listens. */
  #lost(client: pg.Client): void {
    if (this.#client !== client) return;
    this.#disconnect();
    if (this.#closed || this.#subscribers.size === 0) return;
    const delay = Math.min(MAX_BACKOFF_MS, MIN_BACKOFF_MS * 2 ** Math.min(this.#failures++, 30));
    this.#retry = setTimeout(() => this.#connect(), delay);
    this.#retry.unref();
  }

  #disconnect(): void {
    clearTimeout(this.#retry);
    clearInterval(this.#heartbeat);
    this.#retry = undefined;
    this.#heartbeat = undefined;
    const client = this.#client;
    this.#client = undefined;
    client?.end().catch(ignore);
  }

  #notify(payload?: string): void {
    for (const subscriber of this.#subscribers) {
      try {
        subscriber(payload);
      } catch {
        // A subscriber's failure is its own; the others still hear about the work.
      }
    }
  }
}
