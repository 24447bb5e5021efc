import { randomUUID } from 'node:crypto';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect as natsConnect } from '@nats-io/transport-node';
import { createClient } from 'redis';
import { describe, expect, it } from 'vitest';
import { brokerTransports, type ClosableWebhookTransport } from '@plant-store/broker-transports';
import type { WebhookRequest } from '@plant-store/core/adapter';
import type { BrokerKind } from '../support/broker-consumers.js';
import { brokerFixtures } from '../support/broker-fixtures.js';
import { eventually } from '../support/eventually.js';

// The transports on their own against the real brokers: what counts as delivered, and how each failure comes back.

const { defer, consumer, proxy } = brokerFixtures();

function transport(): ClosableWebhookTransport {
  const made = brokerTransports({ idleMs: 200 });
  defer(() => made.close());
  return made;
}

function request(url: string, id = `msg_${randomUUID()}`): WebhookRequest {
  return {
    url,
    headers: { 'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': '1700000000', 'webhook-signature': 'v1,c2ln' },
    body: '{"id":1,"name":"Fern"}',
    timeoutMs: 3_000,
    signal: new AbortController().signal,
  };
}

describe.each<BrokerKind>(['amqp', 'nats', 'redis', 'mqtt'])('%s transport', (kind) => {
  it('carries the body and every header', async () => {
    const hooks = await consumer(kind);
    const sent = request(hooks.url());
    expect(await transport().send(sent)).toEqual({ kind: 'delivered' });
    await eventually(() => hooks.received.length === 1, 'the message');
    expect(hooks.received[0]!.body).toBe(sent.body);
    expect(hooks.received[0]!.headers).toMatchObject(sent.headers);
  });

  it('answers retry when a pooled connection is cut, and delivers on a new one once the broker is back', async () => {
    const hooks = await consumer(kind);
    const front = await proxy(kind);
    const sender = transport();
    expect(await sender.send(request(hooks.url(front.port)))).toEqual({ kind: 'delivered' });
    front.cut();
    const lost = await sender.send(request(hooks.url(front.port)));
    expect(lost.kind).toBe('retry');
    front.restore();
    await eventually(async () => (await sender.send(request(hooks.url(front.port)))).kind === 'delivered', 'a delivery after the cut');
  });

  it('answers retry once closed', async () => {
    const hooks = await consumer(kind);
    const sender = transport();
    expect(await sender.send(request(hooks.url()))).toEqual({ kind: 'delivered' });
    await sender.close();
    expect(await sender.send(request(hooks.url()))).toEqual({ kind: 'retry', reason: 'the transport is closed' });
  });
});

describe('broker transport outcomes', () => {
  it('fails a URL no transport can send to', async () => {
    const sender = transport();
    expect(await sender.send(request('kafka://broker.test/plants'))).toEqual({ kind: 'failed', reason: 'unsupported protocol kafka:' });
    expect(await sender.send(request('redis://127.0.0.1:6379/0'))).toEqual({
      kind: 'failed',
      reason: 'url must name the stream: redis://host:6379/0?stream=plants',
    });
    expect(await sender.send(request('https://example.test/'))).toEqual({ kind: 'failed', reason: 'no HTTP transport' });
  });

  it('retries an AMQP message no queue takes (mandatory), and a missing exchange', async () => {
    const sender = transport();
    const unroutable = await sender.send(request(`amqp://guest:guest@127.0.0.1:5672/?exchange=amq.direct&routingKey=nobody-${randomUUID()}`));
    expect(unroutable).toMatchObject({ kind: 'retry', reason: expect.stringMatching(/^unroutable: no queue is bound to exchange "amq.direct"/) });
    const missing = await sender.send(request(`amqp://guest:guest@127.0.0.1:5672/?exchange=missing-${randomUUID()}&routingKey=k`));
    expect(missing).toMatchObject({ kind: 'retry', reason: expect.stringMatching(/NOT_FOUND - no exchange 'missing-/) });
    // The channel the broker closed is made again.
    const hooks = await consumer('amqp');
    expect(await sender.send(request(hooks.url()))).toEqual({ kind: 'delivered' });
  });

  it('keeps credentials out of the reason of a refused login', async () => {
    const sender = transport();
    const refused = await sender.send(request('amqp://guest:not-the-s3cret@127.0.0.1:5672/?exchange=amq.direct'));
    expect(refused).toMatchObject({ kind: 'retry', reason: expect.stringMatching(/ACCESS_REFUSED/) });
    expect(JSON.stringify(refused)).not.toContain('not-the-s3cret');
  });

  it('lets JetStream drop a retry of a stored message by its webhook id', async () => {
    const hooks = await consumer('nats');
    const sender = transport();
    const id = `msg_${randomUUID()}`;
    expect(await sender.send(request(hooks.url(), id))).toEqual({ kind: 'delivered' });
    expect(await sender.send(request(hooks.url(), id))).toEqual({ kind: 'delivered' });
    const subject = new URL(hooks.url()).pathname.slice(1);
    const nc = await natsConnect({ servers: '127.0.0.1:4222' });
    try {
      const jsm = await jetstreamManager(nc);
      const stream = await jsm.streams.find(subject);
      expect((await jsm.streams.info(stream)).state.messages).toBe(1);
    } finally {
      await nc.close();
    }
  });

  it('retries a NATS subject no stream takes, naming it', async () => {
    const subject = `plant-store-test-none-${randomUUID().slice(0, 8)}.plants`;
    expect(await transport().send(request(`nats://127.0.0.1:4222/${subject}`))).toEqual({
      kind: 'retry',
      reason: `no JetStream stream takes subject "${subject}" (no responders)`,
    });
  });

  it('keeps a Redis stream near maxLen, each entry the body and one field per header', async () => {
    const stream = `plant-store-test-trim-${randomUUID().slice(0, 8)}`;
    const redis = await createClient({ url: 'redis://127.0.0.1:6379' }).connect();
    defer(async () => {
      await redis.del(stream);
      await redis.quit();
    });
    const sender = transport();
    const sent = request(`redis://127.0.0.1:6379/0?stream=${stream}&maxLen=50`);
    for (let index = 0; index < 300; index++)
      expect(await sender.send({ ...sent, headers: { ...sent.headers, 'webhook-id': `msg_${index}` } })).toEqual({ kind: 'delivered' });
    // Trimmed approximately (MAXLEN ~): whole nodes go, never below maxLen.
    const length = await redis.xLen(stream);
    expect(length).toBeGreaterThanOrEqual(50);
    expect(length).toBeLessThan(300);
    const newest = await redis.xRevRange(stream, '+', '-', { COUNT: 1 });
    expect(newest?.[0]?.message).toEqual({ ...sent.headers, 'webhook-id': 'msg_299', body: sent.body });
  });

  it('retries a broker that refuses connections', async () => {
    const front = await proxy('mqtt');
    const port = front.port;
    await front.close();
    expect(await transport().send(request(`mqtt://127.0.0.1:${port}/t`))).toMatchObject({ kind: 'retry', reason: expect.stringMatching(/ECONNREFUSED/) });
  });

  it('ends an attempt at the dispatcher stop', async () => {
    const hooks = await consumer('redis');
    const front = await proxy('redis');
    front.stall();
    const controller = new AbortController();
    const sending = transport().send({ ...request(hooks.url(front.port)), timeoutMs: 60_000, signal: controller.signal });
    controller.abort();
    expect(await sending).toEqual({ kind: 'retry', reason: 'aborted: the dispatcher stopped' });
  });
});
