import type { BrokerDestination } from '@plant-store/core/adapter';
import { driverExports, errorReason, type BrokerClient, type BrokerConnection, type BrokerMessage } from './broker-connection.js';

type RedisDestination = Extract<BrokerDestination, { kind: 'redis' }>;

/** The stream field that holds the body; the headers are fields of their own. */
export const BODY_FIELD = 'body';

/** Redis Streams with `redis`: one `XADD` per message, the stream trimmed to about `maxLen` entries. */
export const redisClient: BrokerClient<RedisDestination> = {
  kind: 'redis',
  async connect(connection, { timeoutMs }) {
    const client = await connectedClient(connection, timeoutMs);
    const connectionOf: BrokerConnection<RedisDestination> = {
      get open() {
        return client.isOpen && client.isReady;
      },
      async publish(destination, message: BrokerMessage) {
        const fields: Record<string, string> = {};
        // A header named like the body field cannot displace the body.
        for (const [name, value] of Object.entries(message.headers)) if (name !== BODY_FIELD) fields[name] = value;
        fields[BODY_FIELD] = message.body.toString('utf8');
        await client.xAdd(destination.stream, '*', fields, { TRIM: { strategy: 'MAXLEN', strategyModifier: '~', threshold: destination.maxLen } });
      },
      async close() {
        if (client.isOpen) await client.close().catch(() => client.destroy());
      },
    };
    return connectionOf;
  },
};

/** A client connected to `connection`, without reconnects of its own; rejects with the server's reason (a refused login's `WRONGPASS`). */
async function connectedClient(connection: string, timeoutMs: number) {
  const { createClient } = driverExports(await import('redis'), 'createClient');
  let lastError: string | undefined;
  let failConnect: (error: Error) => void = () => {};
  // No reconnect of its own: the pool connects again on the next attempt, and commands never queue behind a lost connection.
  const client = createClient({ url: connection, socket: { connectTimeout: timeoutMs, reconnectStrategy: false }, disableOfflineQueue: true });
  // Without a listener an 'error' event would crash the process.
  client.on('error', (error: unknown) => {
    lastError = errorReason(error);
    failConnect(new Error(lastError));
  });
  try {
    // A refused login comes as an 'error' event while connect() never settles: either ends the connect.
    const connecting = client.connect();
    connecting.catch(() => {}); // may reject after the race is lost: nobody awaits it then
    await Promise.race([connecting, new Promise<never>((_, reject) => (failConnect = reject))]);
  } catch (error) {
    try {
      client.destroy();
    } catch {
      // already closed
    }
    throw new Error(lastError ?? errorReason(error));
  } finally {
    failConnect = () => {};
  }
  return client;
}
