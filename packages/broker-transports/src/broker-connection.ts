import type { BrokerDestination } from '@plant-store/core/adapter';

/** One webhook as a broker message: the exact body and the headers the signature needs (Standard Webhooks and the endpoint's own). */
export interface BrokerMessage {
  readonly body: Buffer;
  readonly headers: Readonly<Record<string, string>>;
  /** The `webhook-id`: the same on every attempt of a delivery, so brokers (JetStream) and consumers de-duplicate by it. */
  readonly id: string;
}

/** An open connection to one broker, shared by every destination on it. */
export interface BrokerConnection<D extends BrokerDestination> {
  /** Resolves once the broker took responsibility for the message; rejects with the broker's reason otherwise. */
  publish(destination: D, message: BrokerMessage): Promise<void>;
  /** `false` once the connection is gone: the pool drops it and the next attempt connects again. */
  readonly open: boolean;
  /** Closes it; never rejects. */
  close(): Promise<void>;
}

/** How to reach one kind of broker: the driver behind it is imported on the first connection. */
export interface BrokerClient<D extends BrokerDestination> {
  readonly kind: D['kind'];
  /** Connects to `connection` (the destination's URL without its path-level parts); rejects with the reason when it cannot. */
  connect(connection: string, options: { readonly timeoutMs: number }): Promise<BrokerConnection<D>>;
}

/** The message of a thrown value, with its code when the message lacks it (a driver error may be anything). */
export function errorReason(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  const message = error.message || (typeof code === 'string' ? code : error.name);
  return typeof code === 'string' && !message.includes(code) ? `${message} (${code})` : message;
}

/**
 * A driver's exports: the drivers are CommonJS, whose exports sit on the import's namespace under Node but only on its
 * `default` once bundled (as the service's CLI is): take whichever has `member`.
 */
export function driverExports<T extends object>(namespace: T, member: keyof T): T {
  if (typeof namespace[member] === 'function') return namespace;
  return (namespace as { default?: T }).default ?? namespace;
}
