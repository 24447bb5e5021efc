import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { verifyWebhook } from '@plant-store/client';
import { startConsumer, type BrokerConsumer } from '../support/broker-consumers.js';
import { startServe, type CliOptions } from '../support/cli-process.js';
import { eventually } from '../support/eventually.js';

// The service as operators run it (the bundled CLI, which loads a broker driver only for a broker URL): a subscription
// to a broker, and a tenant endpoint on one when PLANT_STORE_WEBHOOK_DESTINATION_KINDS allows it.

const consumers: BrokerConsumer[] = [];
afterEach(async () => {
  await Promise.all(consumers.splice(0).map((consumer) => consumer.close()));
});

const secret = `whsec_${randomBytes(32).toString('base64')}`;

describe.each<NonNullable<CliOptions['from']>>(['source', 'build'])('serve with broker destinations (%s CLI)', (from) => {
  it('delivers to subscriptions on RabbitMQ, NATS and Redis and to a tenant endpoint on MQTT, never printing their credentials', async () => {
    const rabbit = await startConsumer('amqp');
    const nats = await startConsumer('nats');
    const redis = await startConsumer('redis');
    const mqtt = await startConsumer('mqtt');
    consumers.push(rabbit, nats, redis, mqtt);
    const service = await startServe(['--port=0', '--storage=memory'], {
      from,
      env: {
        PLANT_STORE_TOKENS: 'hook-token=acme',
        PLANT_STORE_WEBHOOKS: JSON.stringify([rabbit, nats, redis].map((consumer) => ({ url: consumer.url(), secret }))),
        PLANT_STORE_WEBHOOK_DESTINATION_KINDS: 'http,mqtt',
        PLANT_STORE_WEBHOOK_ALLOW_PRIVATE: 'true',
        PLANT_STORE_LOG_LEVEL: 'debug',
      },
    });
    try {
      const call = async (path: string, body: unknown) => {
        const response = await fetch(`${service.url}${path}`, {
          method: 'POST',
          headers: { authorization: 'Bearer hook-token', 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        return { status: response.status, json: (await response.json()) as Record<string, unknown> };
      };
      const endpoint = await call('/webhooks/endpoints', { url: mqtt.url(undefined, 'guest:mqtt-s3cret') });
      expect(endpoint.status).toBe(201);
      expect(endpoint.json.url).toBe(mqtt.url(undefined, '***'));
      expect((await call('/plants', { id: 5, name: 'Brokered' })).status).toBe(200);
      await eventually(() => [rabbit, nats, redis, mqtt].every((consumer) => consumer.received.length > 0), 'every message', 20_000);
      for (const consumer of [rabbit, nats, redis]) {
        expect(await verifyWebhook(consumer.received[0]!.body, consumer.received[0]!.headers, secret)).toEqual({ id: 5n, name: 'Brokered' });
      }
      expect(await verifyWebhook(mqtt.received[0]!.body, mqtt.received[0]!.headers, endpoint.json.secret as string)).toEqual({ id: 5n, name: 'Brokered' });
      const exit = await service.stop('SIGTERM', 10_000);
      expect(exit.code).toBe(0);
      expect(exit.stdout).not.toContain('guest:guest');
      expect(exit.stdout).not.toContain('mqtt-s3cret');
    } finally {
      service.child.kill('SIGKILL');
    }
  });
});
