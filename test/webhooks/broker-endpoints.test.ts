import { describe, expect, it } from 'vitest';
import { brokerTransports } from '@plant-store/broker-transports';
import { verifyWebhook } from '@plant-store/client';
import type { Delivery, DestinationKind, PlantStoreWebhookOptions } from '@plant-store/core';
import { webhookHttpTransport } from '@plant-store/http-node/webhook-transport';
import type { BrokerKind } from '../support/broker-consumers.js';
import { brokerFixtures } from '../support/broker-fixtures.js';
import { api } from '../support/api-client.js';
import { startTestServer } from '../support/test-server.js';
import { eventually } from '../support/eventually.js';
import { TOKENS } from '../support/test-tokens.js';

// Tenant endpoints that name a broker: allowed per kind by the operator, their credentials never shown back or logged.

const PASSWORD = 'guest'; // the brokers' test account; the checks below look for the whole userinfo too
// Redis has no user guest: its default user takes any password when it has none.
const USER: Readonly<Record<BrokerKind, string>> = { amqp: 'guest', nats: 'guest', redis: 'default', mqtt: 'guest' };

const { defer, consumer } = brokerFixtures();

interface Service {
  call(method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }>;
  /** Everything the service logged, as text. */
  logText(): string;
  deliveries(): Promise<readonly Delivery[]>;
}

async function service(kinds: readonly DestinationKind[], { allowPrivateDestinations = true, ...webhooks }: PlantStoreWebhookOptions = {}): Promise<Service> {
  const transport = brokerTransports({ http: webhookHttpTransport() });
  defer(() => transport.close());
  const server = await startTestServer('sqlite', {
    deliver: true,
    allowPrivateDestinations,
    webhooks: { transport, endpointDestinationKinds: kinds, ...webhooks },
  });
  defer(() => server.close());
  return {
    logText: () => JSON.stringify(server.logs),
    async call(method, path, body) {
      const answer = await api(server.url, method, path, { token: TOKENS.owner, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
      return { status: answer.status, json: (answer.json ?? {}) as Record<string, unknown> };
    },
    deliveries: () => server.store.allTenants.webhooks.list(),
  };
}

describe.each<BrokerKind>(['amqp', 'nats', 'redis', 'mqtt'])('tenant endpoints to %s', (kind) => {
  it('delivers to an allowed kind and never shows its credentials again', async () => {
    const hooks = await consumer(kind);
    const api = await service(['http', kind]);
    const userinfo = `${USER[kind]}:${PASSWORD}`;
    const url = hooks.url(undefined, userinfo);
    const created = await api.call('POST', '/webhooks/endpoints', { url });
    expect(created.status).toBe(201);
    const masked = url.replace(`${userinfo}@`, '***@');
    expect(created.json.url).toBe(masked);
    expect(created.json.kind).toBe(kind);
    const id = created.json.id as string;
    expect((await api.call('GET', `/webhooks/endpoints/${id}`)).json.url).toBe(masked);
    expect(JSON.stringify((await api.call('GET', '/webhooks/endpoints')).json)).not.toContain(userinfo);
    expect((await api.call('POST', '/plants', { id: 7, name: 'Fern' })).status).toBe(200);
    await eventually(() => hooks.received.length >= 1, 'the message');
    const [message] = hooks.received;
    expect(await verifyWebhook(message!.body, message!.headers, created.json.secret as string)).toEqual({ id: 7n, name: 'Fern' });
    expect(api.logText()).not.toContain(`${userinfo}@`);
  });

  it('refuses the kind with a 400 naming the rule unless the operator allows it', async () => {
    const hooks = await consumer(kind);
    const api = await service(['http']);
    const answer = await api.call('POST', '/webhooks/endpoints', { url: hooks.url() });
    expect(answer.status).toBe(400);
    expect(JSON.stringify(answer.json)).toContain(`url must be an absolute http or https URL: ${kind} destinations are not allowed for endpoints here`);
    expect(JSON.stringify(answer.json)).not.toContain(PASSWORD);
  });
});

describe('tenant broker endpoints and the destination policy', () => {
  it('refuses a loopback literal unless private destinations are allowed', async () => {
    const api = await service(['amqp'], { allowPrivateDestinations: false });
    const answer = await api.call('POST', '/webhooks/endpoints', { url: 'amqp://guest:guest@127.0.0.1:5672/?exchange=amq.direct' });
    expect(answer.status).toBe(400);
    expect(JSON.stringify(answer.json)).toContain('url must not point to a private, loopback, link-local or multicast address');
  });

  it('fails attempts to a name that resolves to a loopback address', async () => {
    const hooks = await consumer('amqp');
    const api = await service(['amqp'], { allowPrivateDestinations: false, retrySchedule: [] });
    const url = hooks.url().replace('127.0.0.1', 'localhost');
    expect((await api.call('POST', '/webhooks/endpoints', { url })).status).toBe(201);
    expect((await api.call('POST', '/plants', { id: 1, name: 'Fern' })).status).toBe(200);
    await eventually(async () => (await api.deliveries())[0]?.status === 'failed', 'a failed delivery');
    expect((await api.deliveries())[0]!.attempts.map((attempt) => attempt.error)).toEqual(['destination not allowed']);
    expect(hooks.received).toHaveLength(0);
  });
});
