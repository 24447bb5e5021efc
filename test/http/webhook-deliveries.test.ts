import { setTimeout as sleep } from 'node:timers/promises';
import { createPlantStoreClient, verifyWebhook } from '@plant-store/client';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { startReceiver, type ReceivedWebhook, type WebhookReceiver } from '../support/webhook-receiver.js';
import { api, expectObservationsDocumented, type ApiRequest, type ApiResponse } from '../support/api-client.js';
import { openapiResponseChecker } from '../support/openapi-response-check.js';
import { postgresAvailable } from '../support/postgres.js';
import { STORAGE_KINDS, type AnyStorageKind } from '../support/storage-kind.js';
import { startTestServer, type TestServerOptions } from '../support/test-server.js';
import { TOKENS } from '../support/test-tokens.js';

// Deliveries to tenant endpoints over real HTTP, to a real receiver that
// verifies every request with the `standardwebhooks` package: both event
// types, the event header, listing and paging, resend, recover, rotation
// with its overlap, deleting and disabling, SSRF at delivery time and
// auto-disable. Tenant isolation on every deliveries route.

expectObservationsDocumented();

const secretOf = (fill: number) => `whsec_${Buffer.alloc(32, fill).toString('base64')}`;

interface DeliveryJson {
  id: string;
  endpointId: string;
  eventType: string;
  payload: unknown;
  status: string;
  attempts: { at: string; durationMs: number; statusCode?: number; error?: string }[];
  nextAttemptAt?: string;
  createdAt: string;
}

function verifies(secret: string, request: ReceivedWebhook): boolean {
  try {
    new Webhook(secret).verify(request.body, request.headers);
    return true;
  } catch {
    return false;
  }
}

async function withServer(kind: AnyStorageKind, options: TestServerOptions) {
  const server = await startTestServer(kind, options);
  const call = (method: string, path: string, request: ApiRequest = {}) => api(server.url, method, path, request);
  const as = (token: string, body?: unknown): ApiRequest => ({ token, body: body === undefined ? undefined : JSON.stringify(body) });
  const owner = (body?: unknown) => as(TOKENS.owner, body);
  return {
    server,
    call,
    as,
    owner,
    async endpoint(body: Record<string, unknown>, token: string = TOKENS.owner): Promise<{ id: string; secret: string }> {
      const response = await call('POST', '/webhooks/endpoints', as(token, body));
      expect(response.status, response.text).toBe(201);
      return response.json as { id: string; secret: string };
    },
    plant: async (id: number | string, token: string = TOKENS.owner) => {
      const response = await call('POST', '/plants', { token, body: `{"id":${id},"name":"Fern"}` });
      expect(response.status).toBe(200);
    },
    deliveries: async (query = '', token: string = TOKENS.owner) => {
      const response = await call('GET', `/webhooks/deliveries${query}`, { token });
      expect(response.status, response.text).toBe(200);
      return response.json as DeliveryJson[];
    },
    delivery: async (id: string) => (await call('GET', `/webhooks/deliveries/${id}`, owner())).json as DeliveryJson,
  };
}

function expectError(response: ApiResponse, status: number, message?: RegExp): void {
  expect({ status: response.status, body: response.json }).toEqual({ status, body: { error: status, message: expect.any(String) } });
  if (message) expect((response.json as { message: string }).message).toMatch(message);
}

type DeliveringServer = Awaited<ReturnType<typeof withServer>>;

/** A real receiver and a service that delivers to private addresses, with an hour of secret overlap. */
async function deliveringServer(kind: AnyStorageKind): Promise<{ receiver: WebhookReceiver; t: DeliveringServer }> {
  const receiver = await startReceiver();
  const t = await withServer(kind, { deliver: true, allowPrivateDestinations: true, webhooks: { secretOverlapMs: 60 * 60_000 } });
  return { receiver, t };
}

describe.each(STORAGE_KINDS)('deliveries to tenant endpoints (%s storage)', (kind) => {
  let receiver: WebhookReceiver;
  let t: DeliveringServer;
  beforeAll(async () => ({ receiver, t } = await deliveringServer(kind)));
  afterAll(() => Promise.all([t.server.close(), receiver.close()]));

  it('sends plant.created signed for the endpoint, with plant-store-event, and shows the delivery', async () => {
    const { id, secret } = await t.endpoint({ url: receiver.url('/created'), secret: secretOf(1) });
    await t.plant('9223372036854775807');
    const [request] = await receiver.waitFor(1, { path: '/created' });
    expect(request!.body).toBe('{"id":9223372036854775807,"name":"Fern"}');
    expect(request!.headers['plant-store-event']).toBe('plant.created');
    expect(verifies(secret, request!)).toBe(true);
    expect(verifies(secretOf(2), request!)).toBe(false);

    const messageId = request!.headers['webhook-id']!;
    await eventually(async () => (await t.delivery(messageId)).status === 'delivered', 'delivered');
    const response = await t.call('GET', `/webhooks/deliveries/${messageId}`, t.owner());
    // The payload is embedded exactly: the id keeps every digit.
    expect(response.text).toContain('"payload":{"id":9223372036854775807,"name":"Fern"}');
    expect(response.json).toEqual({
      id: messageId,
      endpointId: id,
      eventType: 'plant.created',
      payload: { id: 9223372036854775807, name: 'Fern' },
      status: 'delivered',
      attempts: [{ at: expect.stringMatching(/Z$/), durationMs: expect.any(Number), statusCode: 204 }],
      createdAt: expect.stringMatching(/Z$/),
    });
    expect((await t.deliveries(`?endpoint=${id}`)).map((delivery) => delivery.id)).toEqual([messageId]);
    await t.call('DELETE', `/webhooks/endpoints/${id}`, t.owner());
  });

  it('keeps the messages of a disabled endpoint (parked, never sent) and on enable replays those since parkedSince in order, discarding the older', async () => {
    const { id } = await t.endpoint({ url: receiver.url('/parked'), eventTypes: ['plant.created', 'plant.deleted'], ordering: 'plant' });
    expect((await t.call('PATCH', `/webhooks/endpoints/${id}`, t.owner({ status: 'disabled' }))).status).toBe(200);
    // Three messages about one plant, a few ms apart (parkedSince cuts between creation times).
    await t.plant(7001);
    await sleep(5);
    expect((await t.call('DELETE', '/plants/7001', t.owner())).status).toBe(204);
    await sleep(5);
    await t.plant(7001);
    const parked = await t.deliveries(`?endpoint=${id}&status=parked`);
    expect(parked.map((delivery) => delivery.eventType)).toEqual(['plant.created', 'plant.deleted', 'plant.created']);
    for (const delivery of parked) {
      expect(delivery).toMatchObject({ status: 'parked', attempts: [] });
      expect(delivery).not.toHaveProperty('nextAttemptAt');
    }
    await sleep(100);
    expect(receiver.at('/parked')).toEqual([]);
    const [newest, middle, oldest] = parked;
    const enabled = await t.call('PATCH', `/webhooks/endpoints/${id}`, t.owner({ status: 'enabled', parkedSince: middle!.createdAt }));
    expect(enabled.json).toMatchObject({ status: 'enabled' });
    const requests = await receiver.waitFor(2, { path: '/parked' });
    expect(requests.map((request) => request.headers['webhook-id'])).toEqual([middle!.id, newest!.id]);
    expect(await t.delivery(oldest!.id)).toMatchObject({ status: 'failed', attempts: [{ durationMs: 0, error: 'parked message discarded' }] });
    await t.call('DELETE', `/webhooks/endpoints/${id}`, t.owner());
  });

  it('sends plant.deleted ({"id"}) only to endpoints subscribed to it', async () => {
    const deleted = await t.endpoint({ url: receiver.url('/deleted'), eventTypes: ['plant.deleted'] });
    await t.plant(-42);
    expect(await t.deliveries(`?endpoint=${deleted.id}`)).toEqual([]);
    expect((await t.call('DELETE', '/plants/-42', t.owner())).status).toBe(204);
    const [request] = await receiver.waitFor(1, { path: '/deleted' });
    expect(request!.body).toBe('{"id":-42}');
    expect(request!.headers['plant-store-event']).toBe('plant.deleted');
    expect(verifies(deleted.secret, request!)).toBe(true);
    const [delivery] = await t.deliveries(`?endpoint=${deleted.id}`);
    expect(delivery).toMatchObject({ eventType: 'plant.deleted', payload: { id: -42 } });
    await t.call('DELETE', `/webhooks/endpoints/${deleted.id}`, t.owner());
  });

  it('during the overlap after a rotation, a receiver holding only the old secret and one holding only the new both verify', async () => {
    const old = secretOf(3);
    const fresh = secretOf(4);
    const { id } = await t.endpoint({ url: receiver.url('/rotated'), secret: old });
    expect((await t.call('POST', `/webhooks/endpoints/${id}/rotate-secret`, t.owner({ secret: fresh }))).json).toEqual({ secret: fresh });
    await t.plant(77);
    const [request] = await receiver.waitFor(1, { path: '/rotated' });
    expect(request!.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(verifies(old, request!)).toBe(true);
    expect(verifies(fresh, request!)).toBe(true);
    expect(verifies(secretOf(5), request!)).toBe(false);
    await t.call('DELETE', `/webhooks/endpoints/${id}`, t.owner());
  });

  it('resends a delivered message: 202 {}, the same webhook-id arrives again', async () => {
    const { id, secret } = await t.endpoint({ url: receiver.url('/resend') });
    await t.plant(88);
    const [first] = await receiver.waitFor(1, { path: '/resend' });
    const messageId = first!.headers['webhook-id']!;
    await eventually(async () => (await t.delivery(messageId)).status === 'delivered', 'delivered');
    const resent = await t.call('POST', `/webhooks/deliveries/${messageId}/resend`, { token: TOKENS.owner });
    expect(resent.status).toBe(202);
    expect(resent.text).toBe('{}');
    const [, second] = await receiver.waitFor(2, { path: '/resend' });
    expect(second!.headers['webhook-id']).toBe(messageId);
    expect(second!.body).toBe(first!.body);
    expect(verifies(secret, second!)).toBe(true);
    await eventually(async () => (await t.delivery(messageId)).attempts.length === 2, 'second attempt recorded');
    await t.call('DELETE', `/webhooks/endpoints/${id}`, t.owner());
  });

  it("keeps deliveries to another tenant's endpoints out of sight: 404 on get and resend, absent from lists", async () => {
    const mine = await t.endpoint({ url: receiver.url('/isolated') });
    await t.plant(99);
    const [request] = await receiver.waitFor(1, { path: '/isolated' });
    const messageId = request!.headers['webhook-id']!;
    const other = t.as(TOKENS.otherTenant);
    expectError(await t.call('GET', `/webhooks/deliveries/${messageId}`, other), 404, new RegExp(messageId));
    expectError(await t.call('POST', `/webhooks/deliveries/${messageId}/resend`, other), 404);
    expect((await t.deliveries('', TOKENS.otherTenant)).map((delivery) => delivery.id)).not.toContain(messageId);
    expect(await t.deliveries(`?endpoint=${mine.id}`, TOKENS.otherTenant)).toEqual([]);
    expectError(await t.call('POST', `/webhooks/endpoints/${mine.id}/recover`, t.as(TOKENS.otherTenant, { since: '2020-01-01T00:00:00Z' })), 404);
    expectError(await t.call('POST', `/webhooks/deliveries/${messageId}/resend`, { token: TOKENS.webhookReader }), 403);
    expect((await t.call('GET', `/webhooks/deliveries/${messageId}`, { token: TOKENS.webhookReader })).status).toBe(200);
    await t.call('DELETE', `/webhooks/endpoints/${mine.id}`, t.owner());
  });
});

// On PostgreSQL too: its headers column is jsonb, and its secret columns hold whsk_ keys as they hold whsec_ secrets.
describe.each<AnyStorageKind>([...STORAGE_KINDS, ...(postgresAvailable ? (['postgres'] as const) : [])])(
  'custom headers and Ed25519 signatures (%s storage)',
  (kind) => {
    let receiver: WebhookReceiver;
    let t: DeliveringServer;
    beforeAll(async () => ({ receiver, t } = await deliveringServer(kind)));
    afterAll(() => Promise.all([t.server.close(), receiver.close()]));

    it("sends the endpoint's own headers on every attempt, the changed ones after a PATCH, and never logs their values", async () => {
      const { id, secret } = await t.endpoint({ url: receiver.url('/headers'), headers: { Authorization: 'Bearer hdr-value-1', 'X-Team': 'garden' } });
      await t.plant(61);
      const [first] = await receiver.waitFor(1, { path: '/headers' });
      expect(first!.headers).toMatchObject({ authorization: 'Bearer hdr-value-1', 'x-team': 'garden', 'plant-store-event': 'plant.created' });
      expect(verifies(secret, first!)).toBe(true);
      const messageId = first!.headers['webhook-id']!;
      await eventually(async () => (await t.delivery(messageId)).status === 'delivered', 'delivered');
      expect((await t.call('POST', `/webhooks/deliveries/${messageId}/resend`, t.owner())).status).toBe(202);
      const [, again] = await receiver.waitFor(2, { path: '/headers' });
      expect(again!.headers).toMatchObject({ 'webhook-id': messageId, authorization: 'Bearer hdr-value-1', 'x-team': 'garden' });
      const patched = await t.call('PATCH', `/webhooks/endpoints/${id}`, t.owner({ headers: { 'X-Other': 'hdr-value-2' } }));
      expect(patched.json).toMatchObject({ headers: { 'X-Other': 'hdr-value-2' } });
      await t.plant(62);
      const [, , third] = await receiver.waitFor(3, { path: '/headers' });
      expect(third!.headers['x-other']).toBe('hdr-value-2');
      expect(third!.headers).not.toHaveProperty('authorization');
      expect(JSON.stringify(t.server.logs)).not.toMatch(/hdr-value/);
      await t.call('DELETE', `/webhooks/endpoints/${id}`, t.owner());
    });

    it('signs an ed25519 endpoint with v1a: verifyWebhook passes with the whpk_ key, and after a rotation with the old and the new key', async () => {
      const created = await t.endpoint({ url: receiver.url('/ed25519'), signature: 'ed25519' });
      expect(created.secret).toMatch(/^whpk_[A-Za-z0-9+/]{43}=$/);
      expect((await t.call('GET', `/webhooks/endpoints/${created.id}/secret`, t.owner())).json).toEqual({ secret: created.secret });
      await t.plant(71);
      const [request] = await receiver.waitFor(1, { path: '/ed25519' });
      expect(request!.headers['webhook-signature']).toMatch(/^v1a,[A-Za-z0-9+/]{86}==$/);
      await expect(verifyWebhook(request!.body, request!.headers, created.secret)).resolves.toEqual({ id: 71n, name: 'Fern' });
      // Nothing a receiver holds can sign: there is no HMAC signature to check with the public key's bytes.
      expect(verifies(`whsec_${created.secret.slice('whpk_'.length)}`, request!)).toBe(false);

      expectError(await t.call('POST', `/webhooks/endpoints/${created.id}/rotate-secret`, t.owner({ secret: secretOf(6) })), 400, /^secret /);
      const rotated = await t.call('POST', `/webhooks/endpoints/${created.id}/rotate-secret`, t.owner());
      const fresh = (rotated.json as { secret: string }).secret;
      expect(fresh).toMatch(/^whpk_/);
      expect(fresh).not.toBe(created.secret);
      await t.plant(72);
      const [, after] = await receiver.waitFor(2, { path: '/ed25519' });
      expect(after!.headers['webhook-signature']!.split(' ').map((signature) => signature.slice(0, 4))).toEqual(['v1a,', 'v1a,']);
      await expect(verifyWebhook(after!.body, after!.headers, created.secret)).resolves.toEqual({ id: 72n, name: 'Fern' });
      await expect(verifyWebhook(after!.body, after!.headers, fresh)).resolves.toEqual({ id: 72n, name: 'Fern' });
      expect(JSON.stringify(t.server.logs)).not.toMatch(/whsk_/);
      await t.call('DELETE', `/webhooks/endpoints/${created.id}`, t.owner());
    });
  },
);

describe.each(STORAGE_KINDS)('failing receivers: recover and the end of the overlap (%s storage)', (kind) => {
  let receiver: WebhookReceiver;
  let t: Awaited<ReturnType<typeof withServer>>;
  beforeAll(async () => {
    receiver = await startReceiver();
    // No retries: one failed attempt ends a delivery. A short overlap, so its end can be awaited.
    t = await withServer(kind, { deliver: true, allowPrivateDestinations: true, webhooks: { retrySchedule: [], secretOverlapMs: 300 } });
  });
  afterAll(async () => {
    await t.server.close();
    await receiver.close();
  });

  it('recover queues again the failed deliveries created since the given time, and they are sent', async () => {
    receiver.reply(() => ({ status: 500 }));
    const { id, secret } = await t.endpoint({ url: receiver.url('/recover') });
    await t.plant(1);
    await t.plant(2);
    await eventually(async () => (await t.deliveries(`?endpoint=${id}&status=failed`)).length === 2, 'two failed');
    const failed = await t.deliveries(`?endpoint=${id}&status=failed`);
    expect(failed[0]!.attempts).toEqual([expect.objectContaining({ statusCode: 500 })]);
    receiver.reply(() => ({ status: 204 }));
    const since = failed[0]!.createdAt; // the newer one only
    const recovered = await t.call('POST', `/webhooks/endpoints/${id}/recover`, t.owner({ since }));
    expect(recovered.status).toBe(202);
    expect(recovered.json).toEqual({ requeued: failed[0]!.createdAt === failed[1]!.createdAt ? 2 : 1 });
    await eventually(async () => (await t.delivery(failed[0]!.id)).status === 'delivered', 'recovered delivery sent');
    const last = receiver.at('/recover').at(-1)!;
    expect(last.headers['webhook-id']).toBe(failed[0]!.id);
    expect(verifies(secret, last)).toBe(true);
    // The older one is still failed (unless both were created in the same millisecond): recovering from long ago queues it.
    const stillFailed = (await t.deliveries(`?endpoint=${id}&status=failed`)).length;
    const again = await t.call('POST', `/webhooks/endpoints/${id}/recover`, t.owner({ since: '2000-01-01T00:00:00Z' }));
    expect(again.json).toEqual({ requeued: stillFailed });
    await eventually(async () => (await t.deliveries(`?endpoint=${id}&status=delivered`)).length === 2, 'both delivered');
  });

  it('after the overlap, only the new secret signs', async () => {
    const old = secretOf(6);
    const fresh = secretOf(7);
    const { id } = await t.endpoint({ url: receiver.url('/overlap-over'), secret: old });
    await t.call('POST', `/webhooks/endpoints/${id}/rotate-secret`, t.owner({ secret: fresh }));
    await sleep(400);
    await t.plant(3);
    const [request] = await receiver.waitFor(1, { path: '/overlap-over' });
    expect(request!.headers['webhook-signature']!.split(' ')).toHaveLength(1);
    expect(verifies(fresh, request!)).toBe(true);
    expect(verifies(old, request!)).toBe(false);
  });
});

describe.each(STORAGE_KINDS)('queued deliveries (nothing sends them; %s storage)', (kind) => {
  let t: Awaited<ReturnType<typeof withServer>>;
  beforeAll(async () => {
    t = await withServer(kind, {});
  });
  afterAll(() => t.server.close());

  it('lists newest first in keyset pages, with Link keeping the filters, and filters by endpoint and status', async () => {
    const { id } = await t.endpoint({ url: 'https://example.com/paged', eventTypes: ['plant.created', 'plant.deleted'] });
    const other = await t.endpoint({ url: 'https://example.com/other' });
    for (let plant = 1; plant <= 5; plant++) await t.plant(1000 + plant);
    const all = await t.deliveries(`?endpoint=${id}`);
    expect(all.map((delivery) => (delivery.payload as { id: number }).id)).toEqual([1005, 1004, 1003, 1002, 1001]);
    expect(all.every((delivery) => delivery.status === 'pending' && delivery.attempts.length === 0 && delivery.nextAttemptAt !== undefined)).toBe(true);
    const seen: string[] = [];
    let path: string | undefined = `/webhooks/deliveries?endpoint=${id}&status=pending&limit=2`;
    while (path !== undefined) {
      const page = await t.call('GET', path, t.owner());
      const items = page.json as DeliveryJson[];
      seen.push(...items.map((delivery) => delivery.id));
      const link = page.headers.get('link');
      path = link === null ? undefined : /^<([^>]+)>; rel="next"$/.exec(link)![1];
      if (path !== undefined) expect(path).toBe(`/webhooks/deliveries?endpoint=${id}&status=pending&limit=2&after=${items.at(-1)!.id}`);
    }
    expect(seen).toEqual(all.map((delivery) => delivery.id));
    expect(await t.deliveries(`?endpoint=${id}&status=delivered`)).toEqual([]);
    expect((await t.deliveries(`?endpoint=${other.id}`)).length).toBe(5);
    expect((await t.deliveries('?limit=1000')).length).toBeGreaterThanOrEqual(10);
  });

  it('refuses bad list parameters with a 400 naming them', async () => {
    for (const [query, name] of [
      ['status=lost', 'status'],
      ['status=', 'status'],
      ['status=failed&status=pending', 'status'],
      ['endpoint=', 'endpoint'],
      ['endpoint=a&endpoint=b', 'endpoint'],
      ['limit=x', 'limit'],
      ['limit=0', 'limit'],
      ['after=', 'after'],
    ] as const) {
      expectError(await t.call('GET', `/webhooks/deliveries?${query}`, t.owner()), 400, new RegExp(`^${name}\\b`));
    }
  });

  it('deleting an endpoint ends its pending deliveries as failed (endpoint deleted); disabling one parks them, enabling it replays them', async () => {
    const deleted = await t.endpoint({ url: 'https://example.com/deleted' });
    const disabled = await t.endpoint({ url: 'https://example.com/disabled' });
    await t.plant(2001);
    const [toDeleted] = await t.deliveries(`?endpoint=${deleted.id}`);
    const [toDisabled] = await t.deliveries(`?endpoint=${disabled.id}`);
    expect((await t.call('DELETE', `/webhooks/endpoints/${deleted.id}`, t.owner())).status).toBe(204);
    const ended = await t.delivery(toDeleted!.id);
    expect(ended.status).toBe('failed');
    expect(ended.attempts.at(-1)).toMatchObject({ error: 'endpoint deleted' });
    expect(ended).not.toHaveProperty('nextAttemptAt');
    await t.call('PATCH', `/webhooks/endpoints/${disabled.id}`, t.owner({ status: 'disabled' }));
    const parked = await t.delivery(toDisabled!.id);
    expect(parked).toMatchObject({ status: 'parked', attempts: [] });
    expect(parked).not.toHaveProperty('nextAttemptAt');
    // Enabled again, it is queued again (replayed) by default.
    await t.call('PATCH', `/webhooks/endpoints/${disabled.id}`, t.owner({ status: 'enabled' }));
    expect(await t.delivery(toDisabled!.id)).toMatchObject({ status: 'pending', attempts: [], nextAttemptAt: expect.any(String) });
    // Disabled and enabled with discard, it fails; recover queues it again.
    await t.call('PATCH', `/webhooks/endpoints/${disabled.id}`, t.owner({ status: 'disabled' }));
    await t.call('PATCH', `/webhooks/endpoints/${disabled.id}`, t.owner({ status: 'enabled', parked: 'discard' }));
    expect(await t.delivery(toDisabled!.id)).toMatchObject({ status: 'failed', attempts: [{ durationMs: 0, error: 'parked message discarded' }] });
    const recovered = await t.call('POST', `/webhooks/endpoints/${disabled.id}/recover`, t.owner({ since: '2000-01-01T00:00:00Z' }));
    expect(recovered.json).toEqual({ requeued: 1 });
    expect(await t.delivery(toDisabled!.id)).toMatchObject({ status: 'pending' });
  });

  it('resends a failed or pending delivery (any state)', async () => {
    const { id } = await t.endpoint({ url: 'https://example.com/resend-any' });
    await t.plant(3001);
    const [pending] = await t.deliveries(`?endpoint=${id}`);
    expect((await t.call('POST', `/webhooks/deliveries/${pending!.id}/resend`, t.owner())).status).toBe(202);
    await t.call('PATCH', `/webhooks/endpoints/${id}`, t.owner({ status: 'disabled' }));
    await t.call('PATCH', `/webhooks/endpoints/${id}`, t.owner({ status: 'enabled', parked: 'discard' }));
    expect((await t.delivery(pending!.id)).status).toBe('failed');
    expect((await t.call('POST', `/webhooks/deliveries/${pending!.id}/resend`, t.owner())).status).toBe(202);
    expect((await t.delivery(pending!.id)).status).toBe('pending');
    expectError(await t.call('POST', '/webhooks/deliveries/msg_nope/resend', t.owner()), 404, /msg_nope/);
  });
});

describe.each<AnyStorageKind>([...STORAGE_KINDS, ...(postgresAvailable ? (['postgres'] as const) : [])])(
  'parked messages past the bound (a storage keeping 2 per endpoint; %s storage)',
  (kind) => {
    let t: DeliveringServer;
    beforeAll(async () => {
      t = await withServer(kind, { parkedLimit: 2 });
    });
    afterAll(() => t.server.close());

    it('drops the oldest, counts them in parkedDropped until the next disable, and lists the rest as parked', async () => {
      const { id } = await t.endpoint({ url: 'https://example.com/bounded' });
      const endpointPath = `/webhooks/endpoints/${id}`;
      await t.call('PATCH', endpointPath, t.owner({ status: 'disabled' }));
      for (const plant of [8001, 8002, 8003]) await t.plant(plant);
      const parked = await t.deliveries(`?endpoint=${id}&status=parked`);
      expect(parked.map((delivery) => (delivery.payload as { id: number }).id)).toEqual([8003, 8002]);
      expect((await t.call('GET', endpointPath, t.owner())).json).toMatchObject({ status: 'disabled', parkedDropped: 1 });
      const enabled = await t.call('PATCH', endpointPath, t.owner({ status: 'enabled', parked: 'discard' }));
      expect(enabled.status).toBe(200);
      expect(await t.deliveries(`?endpoint=${id}&status=parked`)).toEqual([]);
      expect((await t.deliveries(`?endpoint=${id}&status=failed`)).map((delivery) => delivery.attempts.at(-1)?.error)).toEqual([
        'parked message discarded',
        'parked message discarded',
      ]);
      // A new parking period counts afresh.
      expect((await t.call('PATCH', endpointPath, t.owner({ status: 'disabled' }))).json).not.toHaveProperty('parkedDropped');
    });
  },
);

describe.each<AnyStorageKind>([...STORAGE_KINDS, ...(postgresAvailable ? (['postgres'] as const) : [])])(
  "messages held in a plant's line (nothing sends them; %s storage)",
  (kind) => {
    let t: DeliveringServer;
    beforeAll(async () => {
      t = await withServer(kind, {});
    });
    afterAll(() => t.server.close());

    it('name the message each waits for (waitingBehind) in the list and the get, as documented, and in the typed client', async () => {
      const { id } = await t.endpoint({ url: 'https://example.com/ordered', eventTypes: ['plant.created', 'plant.deleted'], ordering: 'plant' });
      await t.plant(4001);
      expect((await t.call('DELETE', '/plants/4001', t.owner())).status).toBe(204);
      await t.plant(4001);
      const listed = await t.call('GET', `/webhooks/deliveries?endpoint=${id}`, t.owner());
      const [again, deleted, created] = listed.json as (DeliveryJson & { waitingBehind?: string })[];
      expect([again, deleted, created].map((delivery) => delivery!.eventType)).toEqual(['plant.created', 'plant.deleted', 'plant.created']);
      expect(created).toMatchObject({ status: 'pending', nextAttemptAt: expect.any(String) });
      expect(created).not.toHaveProperty('waitingBehind');
      expect(deleted).toMatchObject({ status: 'pending', attempts: [], waitingBehind: created!.id });
      expect(deleted).not.toHaveProperty('nextAttemptAt');
      expect(again).toMatchObject({ waitingBehind: deleted!.id });
      const one = await t.call('GET', `/webhooks/deliveries/${again!.id}`, t.owner());
      expect(one.json).toMatchObject({ id: again!.id, waitingBehind: deleted!.id });
      // Both answers are valid against the served document (its Delivery schema is closed).
      const problems = openapiResponseChecker((await t.call('GET', '/openapi.json')).json as Record<string, unknown>);
      expect(problems('GET', '/webhooks/deliveries', listed)).toEqual([]);
      expect(problems('GET', '/webhooks/deliveries/{id}', one)).toEqual([]);

      const client = createPlantStoreClient({ baseUrl: t.server.url, token: TOKENS.owner });
      expect(await client.webhooks.deliveries.get(deleted!.id)).toMatchObject({ waitingBehind: created!.id });
      const page = await client.webhooks.deliveries.listPage({ endpoint: id });
      expect(page.deliveries.map((delivery) => delivery.waitingBehind)).toEqual([deleted!.id, created!.id, undefined]);
    });
  },
);

describe('destinations that are not public, at delivery time', () => {
  let receiver: WebhookReceiver;
  let t: Awaited<ReturnType<typeof withServer>>;
  beforeAll(async () => {
    receiver = await startReceiver();
    t = await withServer('memory', { deliver: true });
  });
  afterAll(async () => {
    await t.server.close();
    await receiver.close();
  });

  it('refuses http://localhost:<port> (a name, accepted at create) and records "destination not allowed"', async () => {
    const { id } = await t.endpoint({ url: `http://localhost:${receiver.port}/ssrf` });
    await t.plant(1);
    await eventually(async () => (await t.deliveries(`?endpoint=${id}`))[0]?.attempts.length !== 0, 'an attempt');
    const [delivery] = await t.deliveries(`?endpoint=${id}`);
    expect(delivery!.attempts[0]).toMatchObject({ error: 'destination not allowed' });
    expect(delivery!.attempts[0]).not.toHaveProperty('statusCode');
    expect(receiver.received).toEqual([]);
  });
});

describe('auto-disable (a compressed clock)', () => {
  // Time runs 100 000 times faster for the store: the default 5 days without
  // a successful attempt pass in about 4.3 s, the default retry schedule
  // (about 32 h) in about 1.2 s.
  const SPEED = 100_000;
  const started = Date.now();
  const clock = { now: () => started + (Date.now() - started) * SPEED };
  let receiver: WebhookReceiver;
  let t: Awaited<ReturnType<typeof withServer>>;
  beforeEach(async () => {
    receiver = await startReceiver();
    receiver.reply(() => ({ status: 500 }));
    t = await withServer('memory', {
      deliver: true,
      allowPrivateDestinations: true,
      clock,
      // The default schedule and disable-after; leases long in compressed time too.
      // The transport's timeout runs on real time: a minute is "never" here.
      webhooks: { retrySchedule: undefined, leaseMs: 10 * 24 * 3_600_000, timeoutMs: 60_000 },
    });
  });
  afterEach(async () => {
    await t.server.close();
    await receiver.close();
  });

  it('disables an endpoint whose attempts all failed for 5 days, parks its pending deliveries, and logs it', async () => {
    const { id } = await t.endpoint({ url: receiver.url('/down') });
    let plant = 0;
    const deadline = Date.now() + 20_000;
    while (((await t.call('GET', `/webhooks/endpoints/${id}`, t.owner())) as ApiResponse & { json: { status: string } }).json.status === 'enabled') {
      if (Date.now() > deadline) throw new Error('not disabled in time');
      await t.plant(++plant);
      await sleep(100);
    }
    const endpoint = (await t.call('GET', `/webhooks/endpoints/${id}`, t.owner())).json as { status: string; disabledReason?: string };
    expect(endpoint.status).toBe('disabled');
    expect(endpoint.disabledReason).toEqual(expect.any(String));
    await eventually(async () => (await t.deliveries(`?endpoint=${id}&status=pending`)).length === 0, 'no pending deliveries');
    expect(t.server.logs.some((entry) => JSON.stringify(entry).includes(id) && /disabl/i.test(entry.message))).toBe(true);
    // No attempt after that.
    const count = receiver.received.length;
    await t.plant(++plant);
    await sleep(200);
    expect(receiver.received.length).toBe(count);
    // Kept for it instead.
    expect((await t.deliveries(`?endpoint=${id}&status=parked`)).length).toBeGreaterThanOrEqual(1);
  });
});
