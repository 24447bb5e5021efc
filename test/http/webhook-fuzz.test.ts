import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, expectObservationsDocumented, type ApiResponse } from '../support/api-client.js';
import { STORAGE_KINDS } from '../support/storage-kind.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { TOKENS } from '../support/test-tokens.js';

// Property-based fuzzing of the webhook endpoints API: bodies of
// every write, list queries and id segments. Invariants: never a 5xx, every
// error in the error shape, and whatever was accepted reads back as stored.

expectObservationsDocumented();

const RUNS = { numRuns: 40 };

function expectWellFormed(response: ApiResponse): ApiResponse {
  expect(response.status, response.text).toBeLessThan(500);
  if (response.status >= 400) {
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.json).toEqual({ error: response.status, message: expect.any(String) });
  }
  return response;
}

const secret = fc.oneof(
  fc.uint8Array({ minLength: 0, maxLength: 40 }).map((bytes) => `whsec_${Buffer.from(bytes).toString('base64')}`),
  fc.string({ maxLength: 60 }),
);
const url = fc.oneof(
  fc.webUrl({ withQueryParameters: true, withFragments: true }),
  fc.constantFrom(
    'http://127.1/',
    'http://[::1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://0x7f.1/',
    'http://2130706433/',
    'http://169.254.169.254/',
    'http://10.0.0.1/',
  ),
  fc.constantFrom('ftp://example.com/', 'https://u:p@example.com/', 'https://example.com/\u0000', '/relative', '', 'https://'),
  fc.string({ maxLength: 80 }),
);
const eventTypes = fc.oneof(
  fc.subarray(['plant.created', 'plant.deleted']),
  fc.array(fc.constantFrom('plant.created', 'plant.deleted', 'plant.eaten', ''), { maxLength: 4 }),
  fc.anything(),
);
const value = fc.oneof(fc.anything(), fc.string({ maxLength: 600 }), fc.integer(), fc.double());
const fields = {
  url,
  eventTypes,
  description: fc.oneof(fc.string({ maxLength: 600 }), value),
  secret,
  rateLimit: fc.oneof(fc.integer({ min: -2, max: 10_002 }), value),
  status: fc.oneof(fc.constantFrom('enabled', 'disabled', 'paused'), value),
  since: fc.oneof(
    fc.date({ noInvalidDate: true }).map((date) => date.toISOString()),
    fc.string({ maxLength: 40 }),
    value,
  ),
  extra: value,
};
/** Mostly valid endpoints, so the success path is reached too. */
const plausible = fc.record(
  {
    url: fc.webUrl({ validSchemes: ['http', 'https'] }),
    eventTypes: fc.subarray(['plant.created', 'plant.deleted'], { minLength: 1 }),
    description: fc.string({ maxLength: 100 }),
    secret: fc.uint8Array({ minLength: 24, maxLength: 64 }).map((bytes) => `whsec_${Buffer.from(bytes).toString('base64')}`),
    rateLimit: fc.integer({ min: 1, max: 10_000 }),
  },
  { requiredKeys: ['url'] },
);
const body = fc.oneof(
  { arbitrary: plausible.map((record) => JSON.stringify(record)), weight: 3 },
  { arbitrary: fc.record(fields, { requiredKeys: [] }).map((record) => JSON.stringify(record)), weight: 5 },
  fc.json(),
  fc.string({ maxLength: 200 }),
  fc.constant(''),
);

describe.each(STORAGE_KINDS)('fuzzing the webhook endpoints API (%s storage)', (kind) => {
  let server: TestServer;
  let endpointId: string;
  beforeAll(async () => {
    server = await startTestServer(kind);
    const created = await api(server.url, 'POST', '/webhooks/endpoints', { token: TOKENS.owner, body: '{"url":"https://example.com/fuzz"}' });
    endpointId = (created.json as { id: string }).id;
  });
  afterAll(async () => {
    expect(server.logs.filter((entry) => entry.level === 'error')).toEqual([]);
    await server.close();
  });

  it('answers any create body with 201 or 400, and a 201 reads back as created', async () => {
    let created = 0;
    await fc.assert(
      fc.asyncProperty(body, async (text) => {
        const response = expectWellFormed(await api(server.url, 'POST', '/webhooks/endpoints', { token: TOKENS.owner, body: text }));
        expect([201, 400]).toContain(response.status);
        if (response.status !== 201) return;
        created++;
        const { secret: _secret, ...endpoint } = response.json as { id: string; secret: string };
        expect((await api(server.url, 'GET', `/webhooks/endpoints/${endpoint.id}`, { token: TOKENS.owner })).json).toEqual(endpoint);
      }),
      RUNS,
    );
    expect(created).toBeGreaterThan(0);
  });

  it('answers any PATCH, rotate-secret and recover body with success or 400', async () => {
    const targets = [
      ['PATCH', () => `/webhooks/endpoints/${endpointId}`, 200],
      ['POST', () => `/webhooks/endpoints/${endpointId}/rotate-secret`, 200],
      ['POST', () => `/webhooks/endpoints/${endpointId}/recover`, 202],
    ] as const;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...targets), body, async ([method, path, ok], text) => {
        const response = expectWellFormed(await api(server.url, method, path(), { token: TOKENS.owner, body: text }));
        expect([ok, 400]).toContain(response.status);
      }),
      RUNS,
    );
  });

  it('answers any list query with 200 or 400, and any id segment without a 5xx', async () => {
    const name = fc.constantFrom('limit', 'after', 'endpoint', 'status', 'other');
    const raw = fc.oneof(fc.string({ maxLength: 12 }).map(encodeURIComponent), fc.stringMatching(/^[%0-9A-Za-z+_.~-]{0,12}$/));
    const query = fc.array(fc.tuple(name, raw), { maxLength: 5 }).map((pairs) => pairs.map(([key, item]) => `${key}=${item}`).join('&'));
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('endpoints', 'deliveries'), query, async (collection, search) => {
        const response = expectWellFormed(await api(server.url, 'GET', `/webhooks/${collection}?${search}`, { token: TOKENS.owner }));
        expect([200, 400]).toContain(response.status);
        if (response.status === 200) expect(Array.isArray(response.json)).toBe(true);
      }),
      RUNS,
    );
    const segment = fc.oneof(fc.string({ maxLength: 40 }).map(encodeURIComponent), fc.stringMatching(/^[%0-9A-Fa-f._~-]{1,30}$/));
    await fc.assert(
      fc.asyncProperty(segment, fc.constantFrom('/webhooks/endpoints/', '/webhooks/deliveries/'), async (id, prefix) => {
        if (id === '' || id === '.' || id === '..') return;
        const response = expectWellFormed(await api(server.url, 'GET', `${prefix}${id}`, { token: TOKENS.owner }));
        expect([200, 400, 404]).toContain(response.status);
      }),
      RUNS,
    );
  });
});
