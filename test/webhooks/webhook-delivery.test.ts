import { setTimeout as sleep } from 'node:timers/promises';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import type { DeliveryStatus, PlantStoreWebhookOptions } from '@plant-store/core';
import { subscriptionId } from '@plant-store/core/adapter';
import { reservePort, startReceiver, type ReceivedWebhook, type WebhookReceiver } from '../support/webhook-receiver.js';
import { eventually } from '../support/eventually.js';
import type { StorageKind } from '../support/storage-kind.js';
import { TOKENS } from '../support/test-tokens.js';
import { openStorage, startService, type TestService } from '../support/webhook-test-service.js';

const coreVersion = (JSON.parse(readFileSync(new URL('../../packages/core/package.json', import.meta.url), 'utf8')) as { version: string }).version;
const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

const receivers: WebhookReceiver[] = [];
const services: TestService[] = [];
afterEach(async () => {
  // Receivers first: that ends hanging attempts, so the stores stop at once.
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
  await Promise.all(services.splice(0).map((service) => service.close()));
});

async function receiver(port?: number): Promise<WebhookReceiver> {
  const started = await startReceiver(port);
  receivers.push(started);
  return started;
}

/** Waits until the newest delivery of the service has `status`. */
function newestIs(api: TestService, status: DeliveryStatus): Promise<void> {
  return eventually(async () => (await api.store.allTenants.webhooks.list())[0]?.status === status, `${status} status`);
}

function verify(secret: string, request: ReceivedWebhook): void {
  // Throws unless the signature, id and timestamp check out.
  new Webhook(secret).verify(request.body, request.headers);
}

describe.each<StorageKind>(['memory', 'sqlite'])('New Plant webhook (%s storage)', (kind) => {
  async function service(webhooks: PlantStoreWebhookOptions): Promise<TestService> {
    const started = await startService(kind, webhooks);
    services.push(started);
    return started;
  }

  it('POSTs the exact plant JSON with verifiable Standard Webhooks headers', async () => {
    const hooks = await receiver();
    const secret = newSecret();
    const api = await service({ subscriptions: [{ url: hooks.url('/hook?source=plant-store'), secret }] });
    expect(await api.create('{"id":9223372036854775807,"name":"Big Fern"}')).toBe(200);
    expect(await api.create('{"tag":"tiny","name":"Small ü 🌿","id":-9223372036854775808}')).toBe(200);
    expect(await api.create('{"id":2e1,"name":"Twenty"}')).toBe(200);
    const got = await hooks.waitFor(3);
    expect(got.map((request) => request.body).sort()).toEqual(
      ['{"id":-9223372036854775808,"name":"Small ü 🌿","tag":"tiny"}', '{"id":20,"name":"Twenty"}', '{"id":9223372036854775807,"name":"Big Fern"}'].sort(),
    );
    for (const request of got) {
      expect(request.method).toBe('POST');
      expect(request.path).toBe('/hook?source=plant-store');
      expect(request.headers['content-type']).toBe('application/json');
      expect(request.headers['plant-store-event']).toBe('plant.created');
      expect(request.headers['user-agent']).toBe(`plant-store/${coreVersion}`);
      expect(request.headers['content-length']).toBe(String(Buffer.byteLength(request.body)));
      expect(request.headers['webhook-id']).toMatch(/^msg_[0-9a-f]{32}$/);
      expect(Math.abs(Number(request.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(10);
      expect(request.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
      expect(Object.keys(request.headers).sort()).toEqual([
        'connection',
        'content-length',
        'content-type',
        'host',
        'plant-store-event',
        'user-agent',
        'webhook-id',
        'webhook-signature',
        'webhook-timestamp',
      ]);
      expect(() => verify(secret, request)).not.toThrow();
      expect(() => verify(newSecret(), request)).toThrow();
    }
    expect(new Set(got.map((request) => request.headers['webhook-id'])).size).toBe(3);
    await eventually(async () => (await api.store.allTenants.webhooks.list({ status: 'delivered' })).length === 3, 'delivered status');
    for (const delivery of await api.store.allTenants.webhooks.list()) {
      expect(delivery.attempts).toEqual([{ at: expect.any(Number), durationMs: expect.any(Number), statusCode: 204 }]);
    }
  });

  it('retries a failing receiver with one webhook-id until it succeeds', async () => {
    const hooks = await receiver();
    hooks.reply((_, index) => ({ status: index < 2 ? 500 : 200 }));
    const secret = newSecret();
    const api = await service({ subscriptions: [{ url: hooks.url(), secret }] });
    expect(await api.create('{"id":1,"name":"Fern"}')).toBe(200);
    const got = await hooks.waitFor(3);
    expect(new Set(got.map((request) => request.headers['webhook-id'])).size).toBe(1);
    for (const request of got) expect(() => verify(secret, request)).not.toThrow();
    expect(got[1]!.at - got[0]!.at).toBeGreaterThanOrEqual(15);
    expect(got[2]!.at - got[1]!.at).toBeGreaterThanOrEqual(35);
    await newestIs(api, 'delivered');
    const [delivery] = await api.store.allTenants.webhooks.list();
    expect(delivery!.id).toBe(got[0]!.headers['webhook-id']);
    expect(delivery!.attempts.map((attempt) => attempt.statusCode)).toEqual([500, 500, 200]);
    await sleep(100);
    expect(hooks.received).toHaveLength(3);
  });

  it('delivers everything once a receiver that was down comes up', async () => {
    const port = await reservePort();
    const secret = newSecret();
    const api = await service({ subscriptions: [{ url: `http://127.0.0.1:${port}/hook`, secret }], retrySchedule: [30, 60, 120, 240, 480, 960, 960] });
    for (let id = 1; id <= 10; id++) expect(await api.create(`{"id":${id},"name":"P${id}"}`)).toBe(200);
    await eventually(async () => (await api.store.allTenants.webhooks.list({ limit: 100 })).every((delivery) => delivery.attemptCount >= 1), 'first attempts');
    const [refused] = await api.store.allTenants.webhooks.list();
    expect(refused!.status).toBe('pending');
    expect(refused!.attempts[0]!.error).toMatch(/ECONNREFUSED/);
    const hooks = await receiver(port);
    await eventually(() => new Set(hooks.received.map((request) => request.headers['webhook-id'])).size === 10, 'all ten webhooks');
    expect(new Set(hooks.received.map((request) => request.body)).size).toBe(10);
    for (const request of hooks.received) expect(() => verify(secret, request)).not.toThrow();
    await eventually(async () => (await api.store.allTenants.webhooks.list({ status: 'delivered' })).length === 10, 'delivered status');
  });

  it('records a timeout for a hanging receiver and retries', async () => {
    const hooks = await receiver();
    hooks.reply((_, index) => (index === 0 ? 'hang' : { status: 204 }));
    const api = await service({ subscriptions: [{ url: hooks.url(), secret: newSecret() }], timeoutMs: 200 });
    expect(await api.create('{"id":1,"name":"Fern"}')).toBe(200);
    const got = await hooks.waitFor(2);
    expect(got[1]!.headers['webhook-id']).toBe(got[0]!.headers['webhook-id']);
    expect(got[1]!.at - got[0]!.at).toBeGreaterThanOrEqual(190);
    await newestIs(api, 'delivered');
    const [delivery] = await api.store.allTenants.webhooks.list();
    expect(delivery!.attempts[0]).toMatchObject({ error: 'timeout after 200 ms' });
    expect(delivery!.attempts[0]!.statusCode).toBeUndefined();
    expect(delivery!.attempts[1]).toMatchObject({ statusCode: 204 });
  });

  it('stops at once on 410 Gone', async () => {
    const hooks = await receiver();
    hooks.reply(() => ({ status: 410 }));
    const api = await service({ subscriptions: [{ url: hooks.url(), secret: newSecret() }] });
    expect(await api.create('{"id":1,"name":"Fern"}')).toBe(200);
    await newestIs(api, 'failed');
    await sleep(250); // longer than the whole retry schedule
    expect(hooks.received).toHaveLength(1);
    expect((await api.store.allTenants.webhooks.list())[0]!.attempts).toEqual([expect.objectContaining({ statusCode: 410 })]);
  });

  it('honours Retry-After on 429', async () => {
    const hooks = await receiver();
    hooks.reply((_, index) => (index === 0 ? { status: 429, headers: { 'retry-after': '1' } } : { status: 204 }));
    const api = await service({ subscriptions: [{ url: hooks.url(), secret: newSecret() }] });
    expect(await api.create('{"id":1,"name":"Fern"}')).toBe(200);
    const got = await hooks.waitFor(2);
    // The schedule alone would retry after 20 ms.
    expect(got[1]!.at - got[0]!.at).toBeGreaterThanOrEqual(950);
  });

  it('caps a long Retry-After on 503', async () => {
    const hooks = await receiver();
    hooks.reply((_, index) => (index === 0 ? { status: 503, headers: { 'retry-after': '3600' } } : { status: 204 }));
    const api = await service({ subscriptions: [{ url: hooks.url(), secret: newSecret() }], maxRetryAfterMs: 300 });
    expect(await api.create('{"id":1,"name":"Fern"}')).toBe(200);
    const got = await hooks.waitFor(2, { timeoutMs: 10_000 });
    expect(got[1]!.at - got[0]!.at).toBeGreaterThanOrEqual(280);
    await newestIs(api, 'delivered');
  });

  it('does not follow redirects: a 3xx is a failed attempt', async () => {
    const hooks = await receiver();
    hooks.reply((_request, index) => (index === 0 ? { status: 302, headers: { location: '/moved' } } : { status: 204 }));
    const api = await service({ subscriptions: [{ url: hooks.url('/hook'), secret: newSecret() }] });
    expect(await api.create('{"id":1,"name":"Fern"}')).toBe(200);
    await hooks.waitFor(2);
    await newestIs(api, 'delivered');
    expect(hooks.at('/moved')).toHaveLength(0);
    expect(hooks.at('/hook')).toHaveLength(2);
    const [delivery] = await api.store.allTenants.webhooks.list();
    expect(delivery!.attempts[0]).toMatchObject({ statusCode: 302, error: expect.stringMatching(/not followed/) });
  });

  it("sends a tenant's subscription only that tenant's plants, and nothing for a replayed create", async () => {
    const hooks = await receiver();
    const everyone = { url: hooks.url('/all'), secret: newSecret() };
    const acmeOnly = { url: hooks.url('/acme'), secret: newSecret(), tenant: 'a' };
    const api = await service({ subscriptions: [everyone, acmeOnly] });
    expect(await api.create('{"id":1,"name":"Acme plant"}', TOKENS.owner)).toBe(200);
    expect(await api.create('{"id":2,"name":"Globex plant"}', TOKENS.otherTenant)).toBe(200);
    expect(await api.create('{"id":1,"name":"Acme plant"}', TOKENS.owner)).toBe(200); // replay: same plant, no new webhook
    await hooks.waitFor(3);
    await sleep(150);
    expect(
      hooks
        .at('/all')
        .map((request) => request.body)
        .sort(),
    ).toEqual(['{"id":1,"name":"Acme plant"}', '{"id":2,"name":"Globex plant"}']);
    expect(hooks.at('/acme').map((request) => request.body)).toEqual(['{"id":1,"name":"Acme plant"}']);
    for (const request of hooks.at('/all')) expect(() => verify(everyone.secret, request)).not.toThrow();
    for (const request of hooks.at('/acme')) expect(() => verify(acmeOnly.secret, request)).not.toThrow();
    expect(await api.store.allTenants.webhooks.list()).toHaveLength(3);
  });

  it('does not let a hanging endpoint delay deliveries to a healthy one', async () => {
    const slow = await receiver();
    slow.reply(() => 'hang');
    const fast = await receiver();
    const api = await service({
      subscriptions: [
        { url: slow.url(), secret: newSecret() },
        { url: fast.url(), secret: newSecret() },
      ],
      timeoutMs: 8_000,
      concurrency: 8,
      perEndpointConcurrency: 3,
    });
    for (let id = 1; id <= 20; id++) expect(await api.create(`{"id":${id},"name":"P${id}"}`)).toBe(200);
    await fast.waitFor(20);
    // Every fast delivery arrived while no slow attempt has even finished.
    const slowDeliveries = (await api.store.allTenants.webhooks.list({ limit: 100 })).filter((delivery) => delivery.endpointId === subscriptionId(slow.url()));
    expect(slowDeliveries).toHaveLength(20);
    expect(slowDeliveries.every((delivery) => delivery.attemptCount === 0)).toBe(true);
    expect(slow.received.length).toBeLessThanOrEqual(3);
  });

  it('fails a delivery after the last scheduled retry, keeps its attempts, and delivers it after a requeue', async () => {
    const hooks = await receiver();
    hooks.reply(() => ({ status: 500 }));
    const api = await service({ subscriptions: [{ url: hooks.url(), secret: newSecret() }] });
    expect(await api.create('{"id":1,"name":"Fern"}')).toBe(200);
    await newestIs(api, 'failed');
    const [failed] = await api.store.allTenants.webhooks.list({ status: 'failed' });
    expect(failed!.attemptCount).toBe(4);
    expect(failed!.attempts.map((attempt) => attempt.statusCode)).toEqual([500, 500, 500, 500]);
    expect(failed!.nextAttemptAt).toBeUndefined();
    await sleep(150);
    expect(hooks.received).toHaveLength(4);

    hooks.reply(() => ({ status: 200 }));
    await api.store.allTenants.webhooks.requeue(failed!.id);
    const got = await hooks.waitFor(5);
    expect(got[4]!.headers['webhook-id']).toBe(failed!.id);
    await eventually(async () => (await api.store.allTenants.webhooks.get(failed!.id)).status === 'delivered', 'delivered status');
    expect((await api.store.allTenants.webhooks.get(failed!.id)).attempts.map((attempt) => attempt.statusCode)).toEqual([500, 500, 500, 500, 200]);
  });
});

describe('New Plant webhook with two services on one SQLite file', () => {
  it('sends each message once: the lease keeps the other dispatcher off it', async () => {
    const hooks = await receiver();
    hooks.reply(() => ({ status: 204 }));
    const subscriptions = [{ url: hooks.url(), secret: newSecret() }];
    const dir = mkdtempSync(join(tmpdir(), 'plant-store-webhooks-'));
    try {
      const path = join(dir, 'shared.db');
      const one = await startService(await openStorage('sqlite', path), { subscriptions });
      services.push(one);
      const two = await startService(await openStorage('sqlite', path), { subscriptions, pollIntervalMs: 20 });
      services.push(two);
      const statuses = await Promise.all(Array.from({ length: 100 }, (_, i) => (i % 2 === 0 ? one : two).create(`{"id":${i + 1},"name":"P${i + 1}"}`)));
      expect(statuses.every((status) => status === 200)).toBe(true);
      await eventually(async () => (await one.store.allTenants.webhooks.list({ status: 'delivered', limit: 1000 })).length === 100, 'all delivered');
      await sleep(100);
      const ids = hooks.received.map((request) => request.headers['webhook-id']);
      expect(new Set(ids).size).toBe(100);
      expect(ids).toHaveLength(100);
    } finally {
      await Promise.all(services.splice(0).map((service) => service.close()));
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
