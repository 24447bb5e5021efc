import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresAvailable } from '../support/postgres.js';
import { eventually } from '../webhooks/webhook-service.js';
import { startReceiver, type WebhookReceiver } from '../webhooks/webhook-receiver.js';
import { api, expectObservationsDocumented, type ApiRequest } from './support/api-client.js';
import { TOKENS, startTestServer, type AnyStorageKind, type TestServer } from './support/test-server.js';

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
    expect(response.json).toEqual({
      endpointId: id,
      lastAttempt: { at: expect.stringMatching(/Z$/), statusCode: 502 },
      windows: { '1h': window, '24h': window, '7d': window },
    });
    const none = { succeeded: 0, failed: 0, successRate: null };
    expect((await call('GET', `/webhooks/endpoints/${quiet}/stats`, owner())).json).toEqual({ endpointId: quiet, windows: { '1h': none, '24h': none, '7d': none } });
    expect((await call('GET', `/webhooks/endpoints/${id}/stats`, { token: TOKENS.otherTenant })).status).toBe(404);
    expect((await call('GET', `/webhooks/endpoints/${id}/stats`, { token: TOKENS.reader })).status).toBe(403);
    expect((await call('GET', '/webhooks/endpoints/ep_nope/stats', owner())).status).toBe(404);
    expect((await call('POST', `/webhooks/endpoints/${id}/stats`, owner())).status).toBe(405);
  });
});
