import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ForbiddenError,
  LimitExceededError,
  NotFoundError,
  RequestFailedError,
  ValidationError,
  createPlantStoreClient,
  verifyWebhook,
  type PlantStoreClient,
  type WebhookEndpoint,
} from '@plant-store/client';
import { STORAGE_KINDS } from '../support/storage-kind.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { TOKENS } from '../support/test-tokens.js';
import { eventually } from '../support/eventually.js';
import { startReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

// client.webhooks against the REAL service: what the client sends
// (recorded by a fetch wrapper) and how it reads what the service answers.
// Deliveries go to a real receiver; /fail answers 500, and with no retries a
// delivery there fails after one attempt.

interface Recorded {
  readonly method: string;
  readonly url: string;
  readonly body: string;
  readonly contentType: string | null;
  readonly authorization: string | null;
}

interface Canned {
  readonly status: number;
  readonly body: string;
  readonly headers?: Record<string, string>;
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
}

describe.each(STORAGE_KINDS)('client.webhooks against the real service (%s storage)', (kind) => {
  let server: TestServer;
  let receiver: WebhookReceiver;
  let client: PlantStoreClient;
  const requests: Recorded[] = [];
  let canned: Canned | undefined;
  const lastRequest = () => requests.at(-1)!;

  beforeAll(async () => {
    receiver = await startReceiver();
    receiver.reply((request) => ({ status: request.path === '/fail' ? 500 : 204 }));
    server = await startTestServer(kind, { deliver: true, allowPrivateDestinations: true, webhooks: { retrySchedule: [] } });
    client = createPlantStoreClient({
      baseUrl: server.url,
      token: TOKENS.owner,
      fetch: async (input, init) => {
        const headers = new Headers(init?.headers);
        requests.push({
          method: init?.method ?? 'GET',
          url: String(input).slice(server.url.length),
          body: typeof init?.body === 'string' ? init.body : '',
          contentType: headers.get('content-type'),
          authorization: headers.get('authorization'),
        });
        const answer = canned;
        canned = undefined;
        if (answer !== undefined) {
          const statusText = answer.status === 500 ? 'Internal Server Error' : 'OK';
          return new Response(answer.body, { status: answer.status, statusText, headers: { 'content-type': 'application/json', ...answer.headers } });
        }
        return fetch(input, init);
      },
    });
  });
  afterAll(async () => {
    await server.close();
    await receiver.close();
  });

  it('creates an endpoint: the body as given, the result with its secret and Date times', async () => {
    const created = await client.webhooks.endpoints.create({
      url: 'https://example.com/hooks',
      eventTypes: ['plant.created', 'plant.deleted'],
      description: 'mine',
      rateLimit: 5,
      ordering: 'plant',
    });
    expect(lastRequest()).toEqual({
      method: 'POST',
      url: '/webhooks/endpoints',
      body: '{"url":"https://example.com/hooks","eventTypes":["plant.created","plant.deleted"],"description":"mine","rateLimit":5,"ordering":"plant"}',
      contentType: 'application/json',
      authorization: `Bearer ${TOKENS.owner}`,
    });
    expect(created).toEqual({
      id: expect.stringMatching(/^ep_/),
      url: 'https://example.com/hooks',
      kind: 'http',
      eventTypes: ['plant.created', 'plant.deleted'],
      description: 'mine',
      rateLimit: 5,
      ordering: 'plant',
      status: 'enabled',
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      createdAt: expect.any(Date),
      updatedAt: created.createdAt,
    });
    expect(Math.abs(created.createdAt.getTime() - Date.now())).toBeLessThan(60_000);
  });

  it('creates an Ed25519 endpoint with custom headers: the public key on create, getSecret and rotation; headers replaced and removed', async () => {
    const headers = { Authorization: 'Bearer abc', 'X-Team': 'garden' };
    const created = await client.webhooks.endpoints.create({ url: 'https://example.com/keyed', headers, signature: 'ed25519' });
    expect(lastRequest().body).toBe(JSON.stringify({ url: 'https://example.com/keyed', headers, signature: 'ed25519' }));
    expect(created).toMatchObject({ headers, secret: expect.stringMatching(/^whpk_[A-Za-z0-9+/]{43}=$/) });
    expect(await client.webhooks.endpoints.getSecret(created.id)).toBe(created.secret);
    const rotated = await client.webhooks.endpoints.rotateSecret(created.id);
    expect(rotated).toMatch(/^whpk_/);
    expect(rotated).not.toBe(created.secret);
    expect((await client.webhooks.endpoints.update(created.id, { headers: { 'X-Other': '1' } })).headers).toEqual({ 'X-Other': '1' });
    const cleared = await client.webhooks.endpoints.update(created.id, { headers: null });
    expect(lastRequest().body).toBe('{"headers":null}');
    expect(cleared).not.toHaveProperty('headers');
    await expect(client.webhooks.endpoints.update(created.id, { headers: { 'Webhook-Id': 'x' } })).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(/^headers\.Webhook-Id /),
    });
    await client.webhooks.endpoints.delete(created.id);
  });

  it('gets, updates, reads and rotates the secret, recovers and deletes', async () => {
    const { id, secret } = await client.webhooks.endpoints.create({ url: 'https://example.com/two' });
    const fetched = await client.webhooks.endpoints.get(id);
    expect(lastRequest()).toMatchObject({ method: 'GET', url: `/webhooks/endpoints/${id}`, body: '' });
    expect(fetched).not.toHaveProperty('secret');
    expect(fetched.eventTypes).toEqual(['plant.created']);

    const updated = await client.webhooks.endpoints.update(id, { status: 'disabled', description: 'paused' });
    expect(lastRequest()).toMatchObject({ method: 'PATCH', body: '{"status":"disabled","description":"paused"}', contentType: 'application/json' });
    expect(updated).toMatchObject({ id, status: 'disabled', description: 'paused', disabledReason: 'disabled by the tenant' });
    expect(updated.updatedAt.getTime()).toBeGreaterThanOrEqual(updated.createdAt.getTime());
    expect((await client.webhooks.endpoints.update(id, { status: 'enabled' })).status).toBe('enabled');

    expect(await client.webhooks.endpoints.getSecret(id)).toBe(secret);
    expect(lastRequest()).toMatchObject({ method: 'GET', url: `/webhooks/endpoints/${id}/secret` });
    const rotated = await client.webhooks.endpoints.rotateSecret(id);
    expect(lastRequest()).toMatchObject({ method: 'POST', url: `/webhooks/endpoints/${id}/rotate-secret`, body: '{}' });
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);
    const chosen = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
    expect(await client.webhooks.endpoints.rotateSecret(id, { secret: chosen })).toBe(chosen);
    expect(lastRequest().body).toBe(JSON.stringify({ secret: chosen }));
    expect(await client.webhooks.endpoints.getSecret(id)).toBe(chosen);

    expect(await client.webhooks.endpoints.recover(id, new Date('2026-01-02T00:00:00Z'))).toBe(0);
    expect(lastRequest()).toMatchObject({ method: 'POST', url: `/webhooks/endpoints/${id}/recover`, body: '{"since":"2026-01-02T00:00:00.000Z"}' });
    expect(await client.webhooks.endpoints.recover(id, '2025-12-31T00:00:00Z')).toBe(0);
    expect(lastRequest().body).toBe('{"since":"2025-12-31T00:00:00Z"}');

    await client.webhooks.endpoints.delete(id);
    expect(lastRequest()).toMatchObject({ method: 'DELETE', url: `/webhooks/endpoints/${id}` });
    const gone = await rejection(client.webhooks.endpoints.get(id));
    expect(gone).toBeInstanceOf(NotFoundError);
    expect(gone).toMatchObject({ status: 404, message: expect.stringContaining(id), requestId: expect.any(String) });
  });

  it('maps a 400 to ValidationError', async () => {
    const invalid = await rejection(client.webhooks.endpoints.create({ url: 'ftp://example.com/hook' }));
    expect(invalid).toBeInstanceOf(ValidationError);
    expect(invalid).toMatchObject({ status: 400, message: expect.stringMatching(/^url /) });
  });

  it('lists endpoints across Link pages, and page by page', async () => {
    for (let index = 0; index < 4; index++) await client.webhooks.endpoints.create({ url: `https://example.com/list/${index}` });
    const everything = await collect(client.webhooks.endpoints.list());
    expect(everything.length).toBeGreaterThanOrEqual(5);
    const before = requests.length;
    const paged = await collect(client.webhooks.endpoints.list({ limit: 2 }));
    expect(paged).toEqual(everything);
    expect(paged.every((endpoint: WebhookEndpoint) => endpoint.createdAt instanceof Date && !('secret' in endpoint))).toBe(true);
    expect(requests.slice(before).map((request) => request.url)).toEqual(
      Array.from({ length: Math.ceil(everything.length / 2) }, (_, index) =>
        index === 0 ? '/webhooks/endpoints?limit=2' : `/webhooks/endpoints?limit=2&after=${everything[index * 2 - 1]!.id}`,
      ),
    );
    const first = await client.webhooks.endpoints.listPage({ limit: 2 });
    expect(first.endpoints).toEqual(everything.slice(0, 2));
    expect(first.next).toEqual({ limit: 2, after: everything[1]!.id });
    const second = await client.webhooks.endpoints.listPage(first.next);
    expect(second.endpoints).toEqual(everything.slice(2, 4));
  });

  it('lists and gets deliveries with exact payload ids, Date times and filters, and resends', async () => {
    const failing = await client.webhooks.endpoints.create({ url: receiver.url('/fail'), eventTypes: ['plant.created', 'plant.deleted'] });
    await client.plants.create({ id: 9223372036854775807n, name: 'Big', tag: 't' });
    await client.plants.create({ id: -9223372036854775808n, name: 'Small' });
    await client.plants.delete(-9223372036854775808n);
    await eventually(async () => (await collect(client.webhooks.deliveries.list({ endpoint: failing.id, status: 'failed' }))).length === 3, 'three failed');

    const failed = await collect(client.webhooks.deliveries.list({ endpoint: failing.id, status: 'failed', limit: 1 }));
    expect(failed.map((delivery) => delivery.eventType)).toEqual(['plant.deleted', 'plant.created', 'plant.created']);
    const big = failed[2]!;
    expect(big).toEqual({
      id: expect.stringMatching(/^msg_/),
      endpointId: failing.id,
      eventType: 'plant.created',
      payload: { id: 9223372036854775807n, name: 'Big', tag: 't' },
      status: 'failed',
      attempts: [{ at: expect.any(Date), durationMs: expect.any(Number), statusCode: 500, error: 'receiver answered 500' }],
      createdAt: expect.any(Date),
    });
    expect(requests.at(-1)!.url).toBe(`/webhooks/deliveries?endpoint=${failing.id}&status=failed&limit=1&after=${failed[1]!.id}`);
    expect(failed[0]!.payload).toEqual({ id: -9223372036854775808n });

    const page = await client.webhooks.deliveries.listPage({ endpoint: failing.id, limit: 1 });
    expect(page.deliveries.map((delivery) => delivery.id)).toEqual([failed[0]!.id]);
    expect(page.next).toEqual({ endpoint: failing.id, limit: 1, after: failed[0]!.id });

    await client.webhooks.endpoints.update(failing.id, { url: receiver.url('/ok') });
    await client.webhooks.deliveries.resend(big.id);
    expect(lastRequest()).toMatchObject({ method: 'POST', url: `/webhooks/deliveries/${big.id}/resend`, body: '' });
    await eventually(async () => (await client.webhooks.deliveries.get(big.id)).status === 'delivered', 'resent delivery delivered');
    const resent = await client.webhooks.deliveries.get(big.id);
    expect(resent.attempts.map((attempt) => attempt.statusCode)).toEqual([500, 204]);
    const received = receiver.at('/ok').find((request) => request.headers['webhook-id'] === big.id)!;
    // The client's own verifier accepts what the service sent (with the failing endpoint's secret).
    const secret = await client.webhooks.endpoints.getSecret(failing.id);
    await expect(verifyWebhook(received.body, received.headers, secret)).resolves.toEqual({ id: 9223372036854775807n, name: 'Big', tag: 't' });
  });

  it('maps 403 to ForbiddenError naming the webhooks scope', async () => {
    const reader = createPlantStoreClient({ baseUrl: server.url, token: TOKENS.webhookReader });
    const denied = await rejection(reader.webhooks.endpoints.create({ url: 'https://example.com/no' }));
    expect(denied).toBeInstanceOf(ForbiddenError);
    expect(denied).toMatchObject({ status: 403, requiredScope: 'webhooks:write' });
  });

  it("reads the session of its token; a portal link's with its expiry as a Date", async () => {
    expect(await client.webhooks.session()).toEqual({
      tenant: 'a',
      subject: expect.stringMatching(/^token:/),
      scopes: ['plants:read', 'plants:write', 'webhooks:read', 'webhooks:write'],
    });
    expect(lastRequest()).toMatchObject({ method: 'GET', url: '/webhooks/session', body: '' });
    const link = await server.store.allTenants.portalLinks.mint({ tenant: 'a', readOnly: true });
    const portal = createPlantStoreClient({ baseUrl: server.url, token: link.token });
    expect(await portal.webhooks.session()).toEqual({
      tenant: 'a',
      subject: `portal-link:${link.id}`,
      scopes: ['webhooks:read'],
      expiresAt: new Date(link.expiresAt),
    });
    canned = { status: 200, body: '{"tenant":"a","subject":"s","scopes":[],"expiresAt":"soon"}' };
    expect(await rejection(client.webhooks.session())).toMatchObject({ code: 'invalid_response' });
  });

  it('reads the event catalogue with bigint ids in the examples', async () => {
    const catalogue = await client.webhooks.eventTypes();
    expect(lastRequest()).toMatchObject({ method: 'GET', url: '/webhooks/event-types' });
    expect(catalogue.map((entry) => entry.type)).toEqual(['plant.created', 'plant.deleted', 'webhook.endpoint.disabled', 'webhook.delivery.failed']);
    expect(catalogue[0]!.example).toEqual({ id: 9223372036854775807n, name: 'Monstera deliciosa', tag: 'indoor' });
    expect(catalogue[1]!.example).toEqual({ id: 9223372036854775807n });
    // Operational events: their time as a Date.
    expect(catalogue[3]!.example).toMatchObject({ eventType: 'plant.created', attempts: 8, at: new Date('2026-05-02T16:30:00.000Z') });
    expect(catalogue[0]!.schema).toMatchObject({ type: 'object', required: ['id', 'name'] });
  });

  it("reads an endpoint's stats, the last attempt's time as a Date", async () => {
    const { id } = await client.webhooks.endpoints.create({ url: receiver.url('/fail') });
    await server.store.plants.create({ subject: 's', tenant: 'a', scopes: ['plants:write'] }, { id: 777001, name: 'stats' });
    await eventually(async () => (await client.webhooks.endpoints.stats(id)).windows['1h'].failed === 1, 'one failed attempt');
    expect(lastRequest()).toMatchObject({ method: 'GET', url: `/webhooks/endpoints/${id}/stats` });
    const stats = await client.webhooks.endpoints.stats(id);
    expect(stats).toEqual({
      endpointId: id,
      lastAttempt: { at: expect.any(Date), statusCode: 500 },
      windows: {
        '1h': { succeeded: 0, failed: 1, successRate: 0 },
        '24h': { succeeded: 0, failed: 1, successRate: 0 },
        '7d': { succeeded: 0, failed: 1, successRate: 0 },
      },
      hourly: expect.any(Array),
    });
    // The hours: 24, starts as Dates, the failed attempt in the one it was made in.
    expect(stats.hourly).toHaveLength(24);
    expect(stats.hourly.every((hour) => hour.start instanceof Date && hour.start.getTime() % 3_600_000 === 0)).toBe(true);
    const hour = Math.floor(stats.lastAttempt!.at.getTime() / 3_600_000) * 3_600_000;
    expect(stats.hourly.find((entry) => entry.start.getTime() === hour)).toEqual({ start: new Date(hour), succeeded: 0, failed: 1 });
  });

  it('sends a test event and reads back the delivery marked test, its payload id a bigint', async () => {
    const { id } = await client.webhooks.endpoints.create({ url: receiver.url('/client-test') });
    const delivery = await client.webhooks.endpoints.sendTest(id, 'plant.created');
    expect(lastRequest()).toMatchObject({ method: 'POST', url: `/webhooks/endpoints/${id}/test`, body: '{"eventType":"plant.created"}' });
    expect(delivery).toMatchObject({
      endpointId: id,
      eventType: 'plant.created',
      test: true,
      payload: { id: 9223372036854775807n, name: 'Monstera deliciosa' },
    });
    expect(await rejection(client.webhooks.endpoints.sendTest(id, 'plant.moved' as never))).toBeInstanceOf(ValidationError);
  });

  it('creates, reads, replaces and removes a filter (bigints exact), tries one with checkFilter; a test event it refuses is a ConflictError', async () => {
    const filter = { 'data.tag': { $in: ['indoor', 'rare'] }, 'data.id': { $lte: 9223372036854775807n } };
    const created = await client.webhooks.endpoints.create({ url: receiver.url('/client-filter'), filter });
    expect(lastRequest().body).toBe(
      '{"url":"' + receiver.url('/client-filter') + '","filter":{"data.tag":{"$in":["indoor","rare"]},"data.id":{"$lte":9223372036854775807}}}',
    );
    expect(created.filter).toEqual(filter);
    expect((await client.webhooks.endpoints.get(created.id)).filter).toEqual(filter);
    expect((await client.webhooks.endpoints.update(created.id, { filter: { type: 'plant.created' } })).filter).toEqual({ type: 'plant.created' });
    const refused = await rejection(client.webhooks.endpoints.update(created.id, { filter: { 'data.tags': { $elemMatch: { $eq: 'a' } } } }));
    expect(refused).toBeInstanceOf(ValidationError);
    expect(refused).toMatchObject({ message: expect.stringMatching(/^filter\.data\.tags\.\$elemMatch /) });
    expect(await client.webhooks.checkFilter({ 'data.tag': 'indoor' })).toEqual({
      results: [
        { eventType: 'plant.created', matches: true },
        { eventType: 'plant.deleted', matches: false },
        { eventType: 'webhook.endpoint.disabled', matches: false },
        { eventType: 'webhook.delivery.failed', matches: false },
      ],
    });
    expect(lastRequest()).toMatchObject({ method: 'POST', url: '/webhooks/filter-check', body: '{"filter":{"data.tag":"indoor"}}' });
    expect(await rejection(client.webhooks.endpoints.sendTest(created.id, 'plant.deleted'))).toMatchObject({ status: 409, code: 'conflict' });
    expect(await client.webhooks.endpoints.update(created.id, { filter: null })).not.toHaveProperty('filter');
  });

  it('lists deliveries filtered by event type and time, Dates sent as RFC 3339, and follows pages with the filters', async () => {
    const { id } = await client.webhooks.endpoints.create({ url: receiver.url('/client-filters'), eventTypes: ['plant.created', 'plant.deleted'] });
    const first = await client.webhooks.endpoints.sendTest(id, 'plant.deleted');
    await client.webhooks.endpoints.sendTest(id, 'plant.created');
    await client.webhooks.endpoints.sendTest(id, 'plant.deleted');
    const since = first.createdAt;
    const deleted = await collect(
      client.webhooks.deliveries.list({ endpoint: id, eventType: 'plant.deleted', since, until: new Date(Date.now() + 60_000), limit: 1 }),
    );
    expect(deleted.map((delivery) => delivery.eventType)).toEqual(['plant.deleted', 'plant.deleted']);
    expect(requests.at(-2)!.url).toBe(
      `/webhooks/deliveries?endpoint=${id}&eventType=plant.deleted&since=${encodeURIComponent(since.toISOString())}&until=${encodeURIComponent(new URL(server.url + requests.at(-2)!.url).searchParams.get('until')!)}&limit=1`,
    );
    expect(lastRequest().url).toContain('&after=');
    expect(lastRequest().url).toContain('eventType=plant.deleted');
  });

  it('maps 422 to LimitExceededError naming the limit', async () => {
    canned = { status: 422, body: '{"error":422,"message":"a tenant may have at most 50 webhook endpoints"}' };
    const refused = await rejection(client.webhooks.endpoints.create({ url: 'https://example.com/over' }));
    expect(refused).toBeInstanceOf(LimitExceededError);
    expect(refused).toMatchObject({ status: 422, code: 'limit_exceeded', message: 'a tenant may have at most 50 webhook endpoints' });
  });

  it('enables a disabled endpoint with a choice for its parked messages (parkedSince sent as RFC 3339) and reads parkedDropped', async () => {
    const { id } = await client.webhooks.endpoints.create({ url: 'https://example.com/parked-choice' });
    await client.webhooks.endpoints.update(id, { status: 'disabled' });
    const enabled = await client.webhooks.endpoints.update(id, { status: 'enabled', parkedSince: new Date('2026-01-02T03:04:05Z') });
    expect(lastRequest()).toMatchObject({ method: 'PATCH', body: '{"status":"enabled","parkedSince":"2026-01-02T03:04:05.000Z"}' });
    expect(enabled).toMatchObject({ id, status: 'enabled' });
    await client.webhooks.endpoints.update(id, { status: 'enabled', parked: 'replay', parkedSince: '2026-01-02T03:04:05Z' });
    expect(lastRequest().body).toBe('{"status":"enabled","parked":"replay","parkedSince":"2026-01-02T03:04:05Z"}');
    await client.webhooks.endpoints.update(id, { status: 'enabled', parked: 'discard' });
    expect(lastRequest().body).toBe('{"status":"enabled","parked":"discard"}');
    const refused = await rejection(client.webhooks.endpoints.update(id, { parked: 'discard' }));
    expect(refused).toBeInstanceOf(ValidationError);
    expect(refused).toMatchObject({ message: 'parked applies when enabling: send it with "status": "enabled"' });
    canned = {
      status: 200,
      body: `{"id":"${id}","url":"https://example.com/parked-choice","kind":"http","eventTypes":["plant.created"],"ordering":"none","status":"disabled","disabledReason":"disabled by the tenant","parkedDropped":3,"createdAt":"2026-01-01T00:00:00Z","updatedAt":"2026-01-01T00:00:00Z"}`,
    };
    expect(await client.webhooks.endpoints.get(id)).toMatchObject({ status: 'disabled', parkedDropped: 3 });
    canned = {
      status: 200,
      body: `{"id":"${id}","url":"https://example.com/x","status":"enabled","eventTypes":[],"parkedDropped":"3","createdAt":"2026-01-01T00:00:00Z","updatedAt":"2026-01-01T00:00:00Z"}`,
    };
    expect(await rejection(client.webhooks.endpoints.get(id))).toBeInstanceOf(RequestFailedError);
    await client.webhooks.endpoints.delete(id);
  });

  it('lists the parked deliveries of a disabled endpoint by status; enabling it sends them', async () => {
    const { id } = await client.webhooks.endpoints.create({ url: receiver.url('/parked-list') });
    await client.webhooks.endpoints.update(id, { status: 'disabled' });
    await client.plants.create({ id: 9223372036854775806n, name: 'Kept' });
    const parked = await collect(client.webhooks.deliveries.list({ endpoint: id, status: 'parked' }));
    expect(lastRequest().url).toBe(`/webhooks/deliveries?endpoint=${id}&status=parked`);
    expect(parked).toEqual([expect.objectContaining({ status: 'parked', attempts: [], payload: { id: 9223372036854775806n, name: 'Kept' } })]);
    expect(parked[0]).not.toHaveProperty('nextAttemptAt');
    await client.webhooks.endpoints.update(id, { status: 'enabled' });
    await eventually(async () => (await client.webhooks.deliveries.get(parked[0]!.id)).status === 'delivered', 'the parked message sent');
    await client.webhooks.endpoints.delete(id);
  });

  it("reads an older service's endpoint, which sends neither kind nor ordering, as an HTTP endpoint that keeps no order", async () => {
    canned = {
      status: 200,
      body: '{"id":"ep_1","url":"https://example.com/hooks","status":"enabled","eventTypes":["plant.created"],"createdAt":"2026-01-01T00:00:00Z","updatedAt":"2026-01-01T00:00:00Z"}',
    };
    expect(await client.webhooks.endpoints.get('ep_1')).toMatchObject({ id: 'ep_1', kind: 'http', ordering: 'none' });
  });

  it('refuses responses that are not what the API documents', async () => {
    const invalid = async (promise: Promise<unknown>) => {
      const error = await rejection(promise);
      expect(error).toBeInstanceOf(RequestFailedError);
      return error as RequestFailedError;
    };
    canned = { status: 200, body: '{"id":"ep_1","url":"x"}' };
    expect(await invalid(client.webhooks.endpoints.get('ep_1'))).toMatchObject({ code: 'invalid_response', status: 200 });
    canned = { status: 200, body: '{"id":"ep_1",' };
    expect(await invalid(client.webhooks.endpoints.get('ep_1'))).toMatchObject({ code: 'invalid_response', message: expect.stringMatching(/not valid JSON/) });
    canned = { status: 200, body: '[]', headers: { link: '<https://elsewhere.example/webhooks/endpoints?after=ep_9>; rel="next"' } };
    const elsewhere = await invalid(collect(client.webhooks.endpoints.list({ limit: 1 })));
    expect(elsewhere).toMatchObject({ code: 'invalid_response', message: expect.stringContaining('another origin') });
    canned = { status: 500, body: '<html>oops</html>', headers: { 'content-type': 'text/html' } };
    expect(await invalid(client.webhooks.deliveries.get('msg_big'))).toMatchObject({ code: 'http', status: 500, message: 'HTTP 500 Internal Server Error' });
  });
});
