import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresAvailable } from '../support/postgres.js';
import { eventually } from '../support/eventually.js';
import { startReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import { api, expectObservationsDocumented, type ApiRequest } from '../support/api-client.js';
import type { AnyStorageKind } from '../support/storage-kind.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { TOKENS } from '../support/test-tokens.js';

// What the portal shows about deliveries, over real HTTP to a real
// receiver, on every storage: the start of each answer in the attempt log.

expectObservationsDocumented();

const KINDS: AnyStorageKind[] = ['memory', 'sqlite', ...(postgresAvailable ? (['postgres'] as const) : [])];

interface DeliveryJson {
  id: string;
  endpointId: string;
  eventType: string;
  status: string;
  test?: true;
  attempts: { at: string; durationMs: number; statusCode?: number; error?: string; response?: string }[];
  createdAt: string;
}

describe.each(KINDS)('portal deliveries over HTTP (%s storage)', (kind) => {
  let server: TestServer;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await startReceiver();
    server = await startTestServer(kind, { deliver: true, allowPrivateDestinations: true, webhooks: { retrySchedule: [] } });
  });
  afterAll(async () => {
    await server.close();
    await receiver.close();
  });
  const call = (method: string, path: string, request: ApiRequest = {}) => api(server.url, method, path, request);
  const owner = (body?: unknown): ApiRequest => ({ token: TOKENS.owner, body: body === undefined ? undefined : JSON.stringify(body) });
  const endpoint = async (path: string, eventTypes = ['plant.created', 'plant.deleted']) => {
    const response = await call('POST', '/webhooks/endpoints', owner({ url: receiver.url(path), eventTypes }));
    expect(response.status, response.text).toBe(201);
    return (response.json as { id: string }).id;
  };
  let nextPlant = 1;
  const plant = async () => expect((await call('POST', '/plants', { token: TOKENS.owner, body: `{"id":${nextPlant++},"name":"Fern"}` })).status).toBe(200);
  const settled = async (query: string, count: number) => {
    let deliveries: DeliveryJson[] = [];
    await eventually(async () => {
      deliveries = (await call('GET', `/webhooks/deliveries${query}`, owner())).json as DeliveryJson[];
      return deliveries.length >= count && deliveries.every((delivery) => delivery.status !== 'pending');
    }, `${count} settled deliveries`);
    return deliveries;
  };

  it('keeps the first KiB of each answer with the attempt, cut on a UTF-8 boundary; none for an empty answer', async () => {
    const long = `${'é'.repeat(511)}🌵${'z'.repeat(5000)}`; // 1022 bytes of é, then a 4-byte character across the limit
    receiver.reply((request) => {
      if (request.path === '/snippet-long') return { status: 500, headers: { 'content-type': 'text/plain' }, body: long };
      if (request.path === '/snippet-json') return { status: 200, headers: { 'content-type': 'application/json' }, body: '{"received":true}' };
      return { status: 204 };
    });
    const failing = await endpoint('/snippet-long');
    const ok = await endpoint('/snippet-json');
    const empty = await endpoint('/snippet-empty');
    await plant();
    const [failed] = await settled(`?endpoint=${failing}`, 1);
    expect(failed!.attempts).toEqual([
      { at: expect.any(String), durationMs: expect.any(Number), statusCode: 500, error: 'receiver answered 500', response: 'é'.repeat(511) },
    ]);
    const [delivered] = await settled(`?endpoint=${ok}`, 1);
    expect(delivered!.attempts[0]).toMatchObject({ statusCode: 200, response: '{"received":true}' });
    const [silent] = await settled(`?endpoint=${empty}`, 1);
    expect(silent!.attempts[0]).not.toHaveProperty('response');
    const one = await call('GET', `/webhooks/deliveries/${failed!.id}`, owner());
    expect((one.json as DeliveryJson).attempts[0]!.response).toBe('é'.repeat(511));
  });

  it('GET /webhooks/endpoints/{id}/stats: attempts per window, success rate (null when none), last attempt; tenant-scoped', async () => {
    let answered = 0;
    receiver.reply((request) => {
      if (request.path !== '/stats') return { status: 204 };
      answered++;
      return { status: answered === 1 ? 200 : 502 };
    });
    const id = await endpoint('/stats', ['plant.created']);
    const quiet = await endpoint('/stats-quiet', ['plant.deleted']);
    await plant();
    await settled(`?endpoint=${id}`, 1);
    await plant();
    await settled(`?endpoint=${id}`, 2);
    const response = await call('GET', `/webhooks/endpoints/${id}/stats`, { token: TOKENS.webhookReader });
    expect(response.status, response.text).toBe(200);
    const window = { succeeded: 1, failed: 1, successRate: 0.5 };
    type Hour = { start: string; succeeded: number; failed: number };
    const stats = response.json as { lastAttempt: { at: string }; hourly: Hour[] };
    expect(stats).toEqual({
      endpointId: id,
      lastAttempt: { at: expect.stringMatching(/Z$/), statusCode: 502 },
      windows: { '1h': window, '24h': window, '7d': window },
      hourly: expect.any(Array),
    });
    // 24 clock hours, oldest first, up to the current one; the two attempts are in the hours they were made in.
    const starts = stats.hourly.map((hour) => Date.parse(hour.start));
    expect(starts).toHaveLength(24);
    starts.forEach((start, index) => expect(start).toBe(starts[23]! - (23 - index) * 3_600_000));
    expect(stats.hourly[23]!.start).toMatch(/:00:00\.000Z$/);
    const hourOf = (at: string) => stats.hourly.find((hour) => Date.parse(hour.start) === Math.floor(Date.parse(at) / 3_600_000) * 3_600_000)!;
    expect(hourOf(stats.lastAttempt.at).failed).toBe(1);
    expect(stats.hourly.reduce((sum, hour) => sum + hour.succeeded * 10 + hour.failed, 0)).toBe(11);
    const none = { succeeded: 0, failed: 0, successRate: null };
    const quietStats = (await call('GET', `/webhooks/endpoints/${quiet}/stats`, owner())).json as { hourly: Hour[] };
    expect(quietStats).toEqual({ endpointId: quiet, windows: { '1h': none, '24h': none, '7d': none }, hourly: expect.any(Array) });
    expect(quietStats.hourly.every((hour) => hour.succeeded === 0 && hour.failed === 0)).toBe(true);
    expect((await call('GET', `/webhooks/endpoints/${id}/stats`, { token: TOKENS.otherTenant })).status).toBe(404);
    expect((await call('GET', `/webhooks/endpoints/${id}/stats`, { token: TOKENS.reader })).status).toBe(403);
    expect((await call('GET', '/webhooks/endpoints/ep_nope/stats', owner())).status).toBe(404);
    expect((await call('POST', `/webhooks/endpoints/${id}/stats`, owner())).status).toBe(405);
  });

  it("POST /webhooks/endpoints/{id}/test: queues the type's example to that endpoint only, signed, marked test", async () => {
    receiver.reply(() => ({ status: 204 }));
    const created = await call('POST', '/webhooks/endpoints', owner({ url: receiver.url('/test-target'), eventTypes: ['plant.created'] }));
    const { id, secret } = created.json as { id: string; secret: string };
    const bystander = await endpoint('/test-bystander');
    const before = receiver.received.length;
    const response = await call('POST', `/webhooks/endpoints/${id}/test`, owner({ eventType: 'plant.deleted' }));
    expect(response.status, response.text).toBe(202);
    const queued = response.json as DeliveryJson & { payload: unknown };
    expect(queued).toMatchObject({ id: expect.stringMatching(/^msg_/), endpointId: id, eventType: 'plant.deleted', test: true });
    expect(response.text).toContain('"payload":{"id":9223372036854775807}');
    const [hit] = await receiver.waitFor(1, { path: '/test-target' });
    expect(hit!.body).toBe('{"id":9223372036854775807}');
    expect(hit!.headers['plant-store-event']).toBe('plant.deleted');
    expect(hit!.headers['webhook-id']).toBe(queued.id);
    expect(() => new Webhook(secret).verify(hit!.body, hit!.headers)).not.toThrow();
    expect(receiver.received.slice(before).filter((request) => request.path === '/test-bystander')).toEqual([]);
    const [logged] = await settled(`?endpoint=${id}`, 1);
    expect(logged).toMatchObject({ id: queued.id, status: 'delivered', test: true });
    // Real events carry no test flag.
    await plant();
    const [real] = await settled(`?endpoint=${bystander}`, 1);
    expect(real).not.toHaveProperty('test');
  });

  it("test events: 400 naming eventType, 409 for a disabled endpoint, 404 for another tenant's, 403 for a read-only link", async () => {
    const id = await endpoint('/test-errors');
    const unknown = await call('POST', `/webhooks/endpoints/${id}/test`, owner({ eventType: 'plant.updated' }));
    expect(unknown.status).toBe(400);
    expect((unknown.json as { message: string }).message).toMatch(/eventType/);
    expect((await call('POST', `/webhooks/endpoints/${id}/test`, owner({}))).status).toBe(400);
    expect((await call('POST', `/webhooks/endpoints/${id}/test`, owner({ eventType: 'plant.created', extra: 1 }))).status).toBe(400);
    expect((await call('POST', `/webhooks/endpoints/${id}/test`, { token: TOKENS.otherTenant, body: '{"eventType":"plant.created"}' })).status).toBe(404);
    const link = await server.store.allTenants.portalLinks.mint({ tenant: 'a', readOnly: true });
    expect((await call('POST', `/webhooks/endpoints/${id}/test`, { token: link.token, body: '{"eventType":"plant.created"}' })).status).toBe(403);
    expect((await call('PATCH', `/webhooks/endpoints/${id}`, owner({ status: 'disabled' }))).status).toBe(200);
    const disabled = await call('POST', `/webhooks/endpoints/${id}/test`, owner({ eventType: 'plant.created' }));
    expect(disabled.status).toBe(409);
    expect(disabled.json).toEqual({ error: 409, message: expect.stringMatching(/disabled/) });
    expect((await call('GET', `/webhooks/deliveries?endpoint=${id}`, owner())).json).toEqual([]);
  });

  it('GET /webhooks/deliveries filters by eventType, since and until, and the Link keeps the filters', async () => {
    receiver.reply(() => ({ status: 204 }));
    const id = await endpoint('/filters');
    const sent: DeliveryJson[] = [];
    for (const eventType of ['plant.created', 'plant.deleted', 'plant.created', 'plant.created']) {
      const response = await call('POST', `/webhooks/endpoints/${id}/test`, owner({ eventType }));
      sent.push(response.json as DeliveryJson);
      // Distinct creation times, so the time filters have something to tell apart.
      await new Promise((resolve) => setTimeout(resolve, 3));
    }
    const list = async (query: string) => {
      const response = await call('GET', `/webhooks/deliveries?endpoint=${id}&${query}`, owner());
      expect(response.status, response.text).toBe(200);
      return { ids: (response.json as DeliveryJson[]).map((delivery) => delivery.id), link: response.headers.get('link') };
    };
    const [c0, d1, c2, c3] = sent.map((delivery) => delivery.id);
    expect((await list('eventType=plant.deleted')).ids).toEqual([d1]);
    expect((await list(`since=${encodeURIComponent(sent[1]!.createdAt)}`)).ids).toEqual([c3, c2, d1]);
    expect((await list(`until=${encodeURIComponent(sent[2]!.createdAt)}`)).ids).toEqual([d1, c0]);
    const page = await list(`eventType=plant.created&since=${sent[0]!.createdAt}&limit=2`);
    expect(page.ids).toEqual([c3, c2]);
    expect(page.link).toBe(
      `</webhooks/deliveries?endpoint=${id}&eventType=plant.created&since=${encodeURIComponent(sent[0]!.createdAt)}&limit=2&after=${c2}>; rel="next"`,
    );
    const next = await call('GET', page.link!.slice(1, page.link!.indexOf('>')), owner());
    expect((next.json as DeliveryJson[]).map((delivery) => delivery.id)).toEqual([c0]);
    for (const [query, name] of [
      ['eventType=plant.moved', 'eventType'],
      ['since=yesterday', 'since'],
      ['until=2026-13-01T00:00:00Z', 'until'],
      ['since=a&since=b', 'since'],
    ]) {
      const bad = await call('GET', `/webhooks/deliveries?${query}`, owner());
      expect(bad.status).toBe(400);
      expect((bad.json as { message: string }).message).toContain(name);
    }
  });
});
