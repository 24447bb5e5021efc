import { randomUUID } from 'node:crypto';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect as natsConnect } from '@nats-io/transport-node';
import amqp from 'amqplib';
import mqtt from 'mqtt';
import { createClient } from 'redis';
import { describe, expect, it } from 'vitest';
import { brokerTransports, type ClosableWebhookTransport } from '@plant-store/broker-transports';
import type { WebhookRequest } from '@plant-store/core/adapter';
import { BROKERS } from '../support/broker-consumers.js';
import { brokerFixtures } from '../support/broker-fixtures.js';
import { eventually } from '../support/eventually.js';

// A message in a plant's line (an endpoint with ordering "plant") carries the plant id where the broker routes by it,
// against the real brokers: the routing key, the subject and the topic end with it; the default exchange and a Redis stream stay.

const { defer } = brokerFixtures();

const name = () => `plant-store-test-order-${randomUUID().slice(0, 8)}`;

function transport(): ClosableWebhookTransport {
  const made = brokerTransports({ idleMs: 200 });
  defer(() => made.close());
  return made;
}

function request(url: string, orderingKey?: string): WebhookRequest {
  return {
    url,
    headers: { 'content-type': 'application/json', 'webhook-id': `msg_${randomUUID()}`, 'webhook-timestamp': '1700000000', 'webhook-signature': 'v1,c2ln' },
    body: '{"id":42,"name":"Fern"}',
    timeoutMs: 3_000,
    signal: new AbortController().signal,
    ...(orderingKey === undefined ? {} : { orderingKey }),
  };
}

async function amqpChannel() {
  const connection = await amqp.connect(`amqp://guest:guest@${BROKERS.amqp.host}:${BROKERS.amqp.port}`);
  defer(() => connection.close().catch(() => {}));
  return connection.createChannel();
}

type Channel = Awaited<ReturnType<typeof amqpChannel>>;

/** The routing key of the next message in `queue`; `undefined` when it is empty. */
async function nextRoutingKey(channel: Channel, queue: string): Promise<string | undefined> {
  const message = await channel.get(queue, { noAck: true });
  return message === false ? undefined : message.fields.routingKey;
}

describe('the plant id of an ordered message', () => {
  it('ends the AMQP routing key, so a topic binding per plant gets it; without a line the key is as given', async () => {
    const channel = await amqpChannel();
    const exchange = name();
    await channel.assertExchange(exchange, 'topic', { durable: false, autoDelete: true });
    defer(() => channel.deleteExchange(exchange).then(() => {}));
    const { queue } = await channel.assertQueue('', { exclusive: true });
    await channel.bindQueue(queue, exchange, 'plant.created.42');
    const { queue: all } = await channel.assertQueue('', { exclusive: true });
    await channel.bindQueue(all, exchange, 'plant.created');
    const sender = transport();
    const url = `amqp://guest:guest@127.0.0.1:5672/?exchange=${exchange}&routingKey=plant.created`;
    expect(await sender.send(request(url, '42'))).toEqual({ kind: 'delivered' });
    expect(await sender.send(request(url))).toEqual({ kind: 'delivered' });
    expect(await nextRoutingKey(channel, queue)).toBe('plant.created.42');
    expect(await nextRoutingKey(channel, all)).toBe('plant.created');
    // The routing key alone when none is given.
    await channel.bindQueue(queue, exchange, '7');
    expect(await sender.send(request(`amqp://guest:guest@127.0.0.1:5672/?exchange=${exchange}`, '7'))).toEqual({ kind: 'delivered' });
    expect(await nextRoutingKey(channel, queue)).toBe('7');
  });

  it('leaves the AMQP routing key of the default exchange (a queue name) as it is', async () => {
    const channel = await amqpChannel();
    const { queue } = await channel.assertQueue('', { exclusive: true });
    expect(await transport().send(request(`amqp://guest:guest@127.0.0.1:5672/?routingKey=${queue}`, '42'))).toEqual({ kind: 'delivered' });
    expect(await nextRoutingKey(channel, queue)).toBe(queue);
  });

  it('ends the NATS subject, which a stream on subject.> stores', async () => {
    const subject = `${name()}.plants`;
    const nc = await natsConnect({ servers: `${BROKERS.nats.host}:${BROKERS.nats.port}` });
    defer(() => nc.close());
    const jsm = await jetstreamManager(nc);
    const stream = subject.replaceAll('.', '_');
    await jsm.streams.add({ name: stream, subjects: [`${subject}.>`] });
    defer(() => jsm.streams.delete(stream).then(() => {}));
    expect(await transport().send(request(`nats://127.0.0.1:4222/${subject}`, '42'))).toEqual({ kind: 'delivered' });
    const stored = await jsm.streams.getMessage(stream, { last_by_subj: `${subject}.42` });
    expect(stored?.string()).toBe('{"id":42,"name":"Fern"}');
  });

  it('ends the MQTT topic', async () => {
    const topic = `${name()}/plants`;
    const client = await mqtt.connectAsync(`mqtt://${BROKERS.mqtt.host}:${BROKERS.mqtt.port}`, { protocolVersion: 5, clientId: name(), clean: true });
    defer(() => client.endAsync());
    const topics: string[] = [];
    client.on('message', (received) => topics.push(received));
    await client.subscribeAsync(`${topic}/#`, { qos: 1 });
    expect(await transport().send(request(`mqtt://127.0.0.1:1883/${topic}`, '42'))).toEqual({ kind: 'delivered' });
    await eventually(() => topics.length === 1, 'the message');
    expect(topics).toEqual([`${topic}/42`]);
  });

  it('keeps the Redis stream key: one stream is already in order', async () => {
    const stream = name();
    const redis = await createClient({ url: `redis://${BROKERS.redis.host}:${BROKERS.redis.port}` }).connect();
    defer(async () => {
      await redis.del([stream, `${stream}:42`]);
      await redis.close();
    });
    expect(await transport().send(request(`redis://127.0.0.1:6379/0?stream=${stream}`, '42'))).toEqual({ kind: 'delivered' });
    expect(await redis.xLen(stream)).toBe(1);
    expect(await redis.exists(`${stream}:42`)).toBe(0);
  });
});
