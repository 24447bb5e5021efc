import type { BrokerDestination } from '@plant-store/core/adapter';
import { driverExports, type BrokerClient, type BrokerConnection, type BrokerMessage } from './broker-connection.js';

type NatsDestination = Extract<BrokerDestination, { kind: 'nats' }>;

/** NATS JetStream with `@nats-io/transport-node` and `@nats-io/jetstream`: a publish acked by the stream, `msgID` the webhook id. */
export const natsClient: BrokerClient<NatsDestination> = {
  kind: 'nats',
  async connect(connection, { timeoutMs }) {
    const [transport, jetstreamModule] = await Promise.all([import('@nats-io/transport-node'), import('@nats-io/jetstream')]);
    const { connect, headers } = driverExports(transport, 'connect');
    const { jetstream } = driverExports(jetstreamModule, 'jetstream');
    const url = new URL(connection);
    const user = decodeURIComponent(url.username);
    const pass = decodeURIComponent(url.password);
    // A user without a password is a token, as in the NATS CLI's URLs.
    const auth = user === '' ? {} : pass === '' ? { token: user } : { user, pass };
    // No reconnect of its own: the pool connects again on the next attempt, and an attempt never waits out a reconnect loop.
    const nc = await connect({ servers: url.host, ...auth, timeout: timeoutMs, reconnect: false, name: 'plant-store' });
    return natsConnection(nc, jetstream(nc), headers, timeoutMs);
  },
};

type NatsConnection = Awaited<ReturnType<typeof import('@nats-io/transport-node').connect>>;
type JetStreamClient = ReturnType<typeof import('@nats-io/jetstream').jetstream>;
type MakeHeaders = typeof import('@nats-io/transport-node').headers;

function natsConnection(nc: NatsConnection, js: JetStreamClient, headers: MakeHeaders, timeoutMs: number): BrokerConnection<NatsDestination> {
  let open = true;
  void nc.closed().then(() => {
    open = false;
  });
  return {
    get open() {
      return open && !nc.isClosed();
    },
    async publish(destination, message: BrokerMessage) {
      const h = headers();
      for (const [name, value] of Object.entries(message.headers)) h.set(name, value);
      try {
        // msgID: JetStream drops a retry of a message it already stored (within the stream's duplicate window).
        await js.publish(destination.subject, message.body, { msgID: message.id, headers: h, timeout: timeoutMs });
      } catch (error) {
        // The client's name for "no responders" to a publish: nothing stores the subject.
        if (error instanceof Error && error.name === 'JetStreamNotEnabled') {
          throw new Error(`no JetStream stream takes subject "${destination.subject}" (no responders)`);
        }
        throw error;
      }
    },
    async close() {
      open = false;
      await nc.close().catch(() => {});
    },
  };
}
