import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ForbiddenError,
  NotFoundError,
  RequestFailedError,
  createPlantStoreClient,
  type PlantStoreClient,
  type WebhookEndpoint,
} from '@plant-store/client';
import { READ_ONLY_TOKEN, startWebhooksApiStandIn, type WebhooksApiStandIn } from './support/webhooks-api-stand-in.js';

// Runs against a STAND-IN of the §9 routes (see the support file), not the
// real service: it checks what the client sends and how it reads the answers.

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

describe('client.webhooks against a stand-in of the §9 routes', () => {
  let standIn: WebhooksApiStandIn;
  let client: PlantStoreClient;
  const lastRequest = () => {
    const { method, url, headers, body } = standIn.requests.at(-1)!;
    return { method, url, body, contentType: headers['content-type'], authorization: headers.authorization };
  };
  beforeAll(async () => {
    standIn = await startWebhooksApiStandIn();
    client = createPlantStoreClient({ baseUrl: standIn.url, token: standIn.token });
  });
  afterAll(() => standIn.close());

  it('creates an endpoint: the body as given, the result with its secret and Date times', async () => {
    const created = await client.webhooks.endpoints.create({
      url: 'https://example.com/hooks',
      eventTypes: ['plant.created', 'plant.deleted'],
      description: 'mine',
      rateLimit: 5,
    });
    expect(lastRequest()).toEqual({
      method: 'POST',
      url: '/webhooks/endpoints',
      body: '{"url":"https://example.com/hooks","eventTypes":["plant.created","plant.deleted"],"description":"mine","rateLimit":5}',
      contentType: 'application/json',
      authorization: `Bearer ${standIn.token}`,
    });
    expect(created).toEqual({
      id: 'ep_1',
      url: 'https://example.com/hooks',
      eventTypes: ['plant.created', 'plant.deleted'],
      description: 'mine',
      rateLimit: 5,
      status: 'enabled',
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      createdAt: new Date('2026-01-02T03:04:06.678Z'),
      updatedAt: new Date('2026-01-02T03:04:06.678Z'),
    });
  });

  it('gets, updates, reads and rotates the secret, recovers and deletes', async () => {
    const { id, secret } = await client.webhooks.endpoints.create({ url: 'https://example.com/two' });
    const fetched = await client.webhooks.endpoints.get(id);
    expect(lastRequest()).toMatchObject({ method: 'GET', url: `/webhooks/endpoints/${id}`, body: '' });
    expect(fetched).not.toHaveProperty('secret');
    expect(fetched.eventTypes).toEqual(['plant.created']);

    const updated = await client.webhooks.endpoints.update(id, { status: 'disabled', description: 'paused' });
    expect(lastRequest()).toMatchObject({ method: 'PATCH', body: '{"status":"disabled","description":"paused"}', contentType: 'application/json' });
    expect(updated).toMatchObject({ id, status: 'disabled', description: 'paused' });
    expect(updated.updatedAt.getTime()).toBeGreaterThan(updated.createdAt.getTime());

    expect(await client.webhooks.endpoints.getSecret(id)).toBe(secret);
    expect(lastRequest()).toMatchObject({ method: 'GET', url: `/webhooks/endpoints/${id}/secret` });
    const rotated = await client.webhooks.endpoints.rotateSecret(id);
    expect(lastRequest()).toMatchObject({ method: 'POST', url: `/webhooks/endpoints/${id}/rotate-secret`, body: '{}' });
    expect(rotated).not.toBe(secret);
    const chosen = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
    expect(await client.webhooks.endpoints.rotateSecret(id, { secret: chosen })).toBe(chosen);
    expect(lastRequest().body).toBe(JSON.stringify({ secret: chosen }));

    standIn.deliveries.push(
      { id: 'msg_old', endpointId: id, eventType: 'plant.created', payload: '{"id":1,"name":"a"}', status: 'failed', attempts: [], createdAt: '2026-01-01T00:00:00.000Z' },
      { id: 'msg_new', endpointId: id, eventType: 'plant.created', payload: '{"id":2,"name":"b"}', status: 'failed', attempts: [], createdAt: '2026-01-03T00:00:00.000Z' },
    );
    expect(await client.webhooks.endpoints.recover(id, new Date('2026-01-02T00:00:00Z'))).toBe(1);
    expect(lastRequest()).toMatchObject({ method: 'POST', url: `/webhooks/endpoints/${id}/recover`, body: '{"since":"2026-01-02T00:00:00.000Z"}' });
    expect(await client.webhooks.endpoints.recover(id, '2025-12-31T00:00:00Z')).toBe(1);
    expect(lastRequest().body).toBe('{"since":"2025-12-31T00:00:00Z"}');

    await client.webhooks.endpoints.delete(id);
    expect(lastRequest()).toMatchObject({ method: 'DELETE', url: `/webhooks/endpoints/${id}` });
    const gone = await client.webhooks.endpoints.get(id).catch((error: unknown) => error);
    expect(gone).toBeInstanceOf(NotFoundError);
    expect(gone).toMatchObject({ status: 404, message: `webhook endpoint ${id} not found`, requestId: `stand-in-${standIn.requests.length}` });
  });

  it('lists endpoints across Link pages, and page by page', async () => {
    for (let index = 0; index < 4; index++) await client.webhooks.endpoints.create({ url: `https://example.com/list/${index}` });
    const everything = await collect(client.webhooks.endpoints.list());
    const before = standIn.requests.length;
    const paged = await collect(client.webhooks.endpoints.list({ limit: 2 }));
    expect(paged).toEqual(everything);
    expect(paged.every((endpoint: WebhookEndpoint) => endpoint.createdAt instanceof Date && !('secret' in endpoint))).toBe(true);
    expect(standIn.requests.slice(before).map((request) => request.url)).toEqual(
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
    standIn.deliveries.push(
      {
        id: 'msg_big',
        endpointId: 'ep_1',
        eventType: 'plant.created',
        payload: '{"id":9223372036854775807,"name":"Big","tag":"t"}',
        status: 'failed',
        attempts: [
          { at: '2026-01-05T00:00:00.000Z', durationMs: 12, statusCode: 500 },
          { at: '2026-01-05T00:00:05.250Z', durationMs: 3, error: 'connection refused' },
        ],
        createdAt: '2026-01-05T00:00:00.000Z',
      },
      {
        id: 'msg_deleted',
        endpointId: 'ep_1',
        eventType: 'plant.deleted',
        payload: '{"id":-9223372036854775808}',
        status: 'pending',
        attempts: [],
        nextAttemptAt: '2026-01-06T00:00:00.000Z',
        createdAt: '2026-01-06T00:00:00.000Z',
      },
    );
    const failed = await collect(client.webhooks.deliveries.list({ endpoint: 'ep_1', status: 'failed', limit: 1 }));
    // The only failed one to ep_1: a single page, no Link.
    expect(standIn.requests.at(-1)!.url).toBe('/webhooks/deliveries?endpoint=ep_1&status=failed&limit=1');
    expect(failed).toEqual([
      {
        id: 'msg_big',
        endpointId: 'ep_1',
        eventType: 'plant.created',
        payload: { id: 9223372036854775807n, name: 'Big', tag: 't' },
        status: 'failed',
        attempts: [
          { at: new Date('2026-01-05T00:00:00.000Z'), durationMs: 12, statusCode: 500 },
          { at: new Date('2026-01-05T00:00:05.250Z'), durationMs: 3, error: 'connection refused' },
        ],
        createdAt: new Date('2026-01-05T00:00:00.000Z'),
      },
    ]);
    const page = await client.webhooks.deliveries.listPage({ endpoint: 'ep_1', limit: 1 });
    expect(page.deliveries.map((delivery) => delivery.id)).toEqual(['msg_deleted']);
    expect(page.next).toEqual({ endpoint: 'ep_1', limit: 1, after: 'msg_deleted' });
    const newestFirst = await collect(client.webhooks.deliveries.list({ endpoint: 'ep_1', limit: 1 }));
    expect(newestFirst.map((delivery) => delivery.id)).toEqual(['msg_deleted', 'msg_big']);
    expect(standIn.requests.at(-1)!.url).toBe('/webhooks/deliveries?endpoint=ep_1&limit=1&after=msg_deleted');
    const deleted = await client.webhooks.deliveries.get('msg_deleted');
    expect(deleted).toMatchObject({ payload: { id: -9223372036854775808n }, nextAttemptAt: new Date('2026-01-06T00:00:00.000Z') });

    await client.webhooks.deliveries.resend('msg_big');
    expect(lastRequest()).toMatchObject({ method: 'POST', url: '/webhooks/deliveries/msg_big/resend', body: '' });
    expect((await client.webhooks.deliveries.get('msg_big')).status).toBe('pending');
  });

  it('maps 403 to ForbiddenError naming the webhooks scope', async () => {
    const reader = createPlantStoreClient({ baseUrl: standIn.url, token: READ_ONLY_TOKEN });
    const denied = await reader.webhooks.endpoints.create({ url: 'https://example.com/no' }).catch((error: unknown) => error);
    expect(denied).toBeInstanceOf(ForbiddenError);
    expect(denied).toMatchObject({ status: 403, requiredScope: 'webhooks:write' });
  });

  it('refuses responses that are not what the API documents', async () => {
    const invalid = async (promise: Promise<unknown>) => {
      const error = await promise.then(() => undefined, (caught: unknown) => caught);
      expect(error).toBeInstanceOf(RequestFailedError);
      return error as RequestFailedError;
    };
    standIn.answerNextWith(200, '{"id":"ep_1","url":"x"}');
    expect(await invalid(client.webhooks.endpoints.get('ep_1'))).toMatchObject({ code: 'invalid_response', status: 200 });
    standIn.answerNextWith(200, '{"id":"ep_1",');
    expect(await invalid(client.webhooks.endpoints.get('ep_1'))).toMatchObject({ code: 'invalid_response', message: expect.stringMatching(/not valid JSON/) });
    standIn.answerNextWith(200, '[]', { link: '<https://elsewhere.example/webhooks/endpoints?after=ep_9>; rel="next"' });
    const elsewhere = await invalid(collect(client.webhooks.endpoints.list({ limit: 1 })));
    expect(elsewhere).toMatchObject({ code: 'invalid_response', message: expect.stringContaining('another origin') });
    standIn.answerNextWith(500, '<html>oops</html>');
    expect(await invalid(client.webhooks.deliveries.get('msg_big'))).toMatchObject({ code: 'http', status: 500, message: 'HTTP 500 Internal Server Error' });
  });
});
