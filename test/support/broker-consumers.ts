import { randomUUID } from 'node:crypto';
import { jetstreamManager, jetstream, AckPolicy, DeliverPolicy } from '@nats-io/jetstream';
import { connect as natsConnect } from '@nats-io/transport-node';
import amqp from 'amqplib';
import mqtt from 'mqtt';
import { createClient } from 'redis';

/** The brokers every machine that runs the tests has on loopback. */
export const BROKERS = {
  amqp: { host: '127.0.0.1', port: 5672 },
  nats: { host: '127.0.0.1', port: 4222 },
  redis: { host: '127.0.0.1', port: 6379 },
  mqtt: { host: '127.0.0.1', port: 1883 },
} as const;

export type BrokerKind = keyof typeof BROKERS;

/** One message as a consumer got it: the body and the headers (AMQP headers, NATS headers, stream fields, MQTT 5 user properties). */
export interface ConsumedMessage {
  readonly body: string;
  readonly headers: Record<string, string>;
}

/** A consumer of one fresh exchange/stream/subject/topic, listening before anything is published. */
export interface BrokerConsumer {
  /** Where to publish to it, for a broker at `host:port` (a proxy in front of it, or the broker). */
  url(port?: number, credentials?: string): string;
  readonly received: ConsumedMessage[];
  close(): Promise<void>;
}

const name = (kind: string) => `plant-store-test-${kind}-${randomUUID().slice(0, 8)}`;

export async function startConsumer(kind: BrokerKind): Promise<BrokerConsumer> {
  switch (kind) {
    case 'amqp':
      return amqpConsumer();
    case 'nats':
      return natsConsumer();
    case 'redis':
      return redisConsumer();
    case 'mqtt':
      return mqttConsumer();
  }
}

async function amqpConsumer(): Promise<BrokerConsumer> {
  const exchange = name('x');
  const connection = await amqp.connect(`amqp://guest:guest@${BROKERS.amqp.host}:${BROKERS.amqp.port}`);
  const channel = await connection.createChannel();
  await channel.assertExchange(exchange, 'direct', { durable: false, autoDelete: true });
  const { queue } = await channel.assertQueue('', { exclusive: true, autoDelete: true });
  await channel.bindQueue(queue, exchange, 'plants');
  const received: ConsumedMessage[] = [];
  await channel.consume(
    queue,
    (message) => {
      if (!message) return;
      const headers = Object.fromEntries(Object.entries(message.properties.headers ?? {}).map(([key, value]) => [key, String(value)]));
      received.push({ body: message.content.toString('utf8'), headers });
    },
    { noAck: true },
  );
  return {
    url: (port = BROKERS.amqp.port, credentials = 'guest:guest') => `amqp://${credentials}@127.0.0.1:${port}/?exchange=${exchange}&routingKey=plants`,
    received,
    async close() {
      await channel.deleteExchange(exchange).catch(() => {});
      await connection.close().catch(() => {});
    },
  };
}

async function natsConsumer(): Promise<BrokerConsumer> {
  const stream = name('stream');
  const subject = `${stream}.plants`;
  const nc = await natsConnect({ servers: `${BROKERS.nats.host}:${BROKERS.nats.port}` });
  const jsm = await jetstreamManager(nc);
  await jsm.streams.add({ name: stream, subjects: [subject] });
  await jsm.consumers.add(stream, { durable_name: 'test', ack_policy: AckPolicy.None, deliver_policy: DeliverPolicy.All });
  const consumer = await jetstream(nc).consumers.get(stream, 'test');
  const messages = await consumer.consume();
  const received: ConsumedMessage[] = [];
  void (async () => {
    for await (const message of messages) {
      const headers: Record<string, string> = {};
      for (const [key, values] of message.headers ?? []) headers[key] = values[0] ?? '';
      received.push({ body: message.string(), headers });
    }
  })();
  return {
    url: (port = BROKERS.nats.port, credentials) => `nats://${credentials ? `${credentials}@` : ''}127.0.0.1:${port}/${subject}`,
    received,
    async close() {
      await messages.close().catch(() => {});
      await jsm.streams.delete(stream).catch(() => {});
      await nc.close();
    },
  };
}

async function redisConsumer(): Promise<BrokerConsumer> {
  const stream = name('stream');
  const client = createClient({ url: `redis://${BROKERS.redis.host}:${BROKERS.redis.port}` });
  client.on('error', () => {});
  await client.connect();
  const reader = client.duplicate();
  reader.on('error', () => {});
  await reader.connect();
  const received: ConsumedMessage[] = [];
  let closed = false;
  let last = '0';
  const reading = (async () => {
    while (!closed) {
      const answer = await reader.xRead({ key: stream, id: last }, { BLOCK: 100, COUNT: 1000 }).catch(() => null);
      for (const { messages } of (answer as { messages: { id: string; message: Record<string, string> }[] }[] | null) ?? []) {
        for (const { id, message } of messages) {
          last = id;
          const { body = '', ...headers } = message;
          received.push({ body, headers });
        }
      }
    }
  })();
  return {
    url: (port = BROKERS.redis.port, credentials) => `redis://${credentials ? `${credentials}@` : ''}127.0.0.1:${port}/0?stream=${stream}&maxLen=1000000`,
    received,
    async close() {
      closed = true;
      await reading;
      await client.del(stream).catch(() => {});
      await Promise.all([client.close(), reader.close()]);
    },
  };
}

async function mqttConsumer(): Promise<BrokerConsumer> {
  const topic = `${name('topic')}/plants`;
  const client = await mqtt.connectAsync(`mqtt://${BROKERS.mqtt.host}:${BROKERS.mqtt.port}`, { protocolVersion: 5, clientId: name('consumer'), clean: true });
  const received: ConsumedMessage[] = [];
  client.on('message', (_topic, payload, packet) => {
    const properties = packet.properties?.userProperties ?? {};
    const headers = Object.fromEntries(Object.entries(properties).map(([key, value]) => [key, Array.isArray(value) ? String(value[0]) : String(value)]));
    received.push({ body: payload.toString('utf8'), headers });
  });
  await client.subscribeAsync(topic, { qos: 1 });
  return {
    url: (port = BROKERS.mqtt.port, credentials) => `mqtt://${credentials ? `${credentials}@` : ''}127.0.0.1:${port}/${topic}`,
    received,
    async close() {
      await client.endAsync();
    },
  };
}

/** The messages with distinct `webhook-id`s (a retry after a lost acknowledgement may arrive twice; consumers de-duplicate by id). */
export function distinctById(messages: readonly ConsumedMessage[]): ConsumedMessage[] {
  const seen = new Map<string, ConsumedMessage>();
  for (const message of messages) if (!seen.has(message.headers['webhook-id'] ?? '')) seen.set(message.headers['webhook-id'] ?? '', message);
  return [...seen.values()];
}
