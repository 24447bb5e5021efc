import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, expectObservationsDocumented, type ApiRequest, type ApiResponse } from '../support/api-client.js';
import { CONNECTION_HEADER_NAMES, RESERVED_HEADER_NAMES } from '@plant-store/core/adapter';
import { postgresAvailable } from '../support/postgres.js';
import { STORAGE_KINDS, type AnyStorageKind } from '../support/storage-kind.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { TOKENS } from '../support/test-tokens.js';

// The tenant's webhook endpoints over real HTTP: shapes, keyset
// pages, validation, SSRF literals, the auth order, scopes and tenant
// isolation on every route. Deliveries are in webhook-deliveries.test.ts.

expectObservationsDocumented();

const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
const OTHER_SECRET = `whsec_${Buffer.alloc(24, 9).toString('base64')}`;
const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

interface EndpointJson {
  id: string;
  url: string;
  eventTypes: string[];
  description?: string;
  rateLimit?: number;
  status: string;
  disabledReason?: string;
  createdAt: string;
  updatedAt: string;
  secret?: string;
}

function expectError(response: ApiResponse, status: number, message?: RegExp): void {
  expect({ status: response.status, body: response.json }).toEqual({ status, body: { error: status, message: expect.any(String) } });
  expect(response.headers.get('content-type')).toBe('application/json');
  if (message) expect((response.json as { message: string }).message).toMatch(message);
}

describe.each(STORAGE_KINDS)('webhook endpoints API over HTTP (%s storage)', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(() => server.close());

  const call = (method: string, path: string, request: ApiRequest = {}) => api(server.url, method, path, request);
  const owner = (body?: unknown): ApiRequest => ({ token: TOKENS.owner, body: body === undefined ? undefined : JSON.stringify(body) });
  const create = async (body: Record<string, unknown>, token: string = TOKENS.owner): Promise<EndpointJson> => {
    const response = await call('POST', '/webhooks/endpoints', { token, body: JSON.stringify(body) });
    expect(response.status, response.text).toBe(201);
    return response.json as EndpointJson;
  };

  it('creates an endpoint (201, with its secret and the defaults) and reads it back without the secret', async () => {
    const response = await call('POST', '/webhooks/endpoints', owner({ url: 'https://example.com/hooks' }));
    expect(response.status).toBe(201);
    expect(response.headers.get('content-type')).toBe('application/json');
    const created = response.json as EndpointJson;
    expect(created).toEqual({
      id: expect.stringMatching(/^ep_[A-Za-z0-9_-]{26,}$/),
      url: 'https://example.com/hooks',
      kind: 'http',
      eventTypes: ['plant.created'],
      ordering: 'none',
      status: 'enabled',
      createdAt: expect.stringMatching(RFC3339),
      updatedAt: created.createdAt,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    expect(Object.keys(created)).toEqual(['id', 'url', 'kind', 'eventTypes', 'ordering', 'status', 'createdAt', 'updatedAt', 'secret']);
    const fetched = await call('GET', `/webhooks/endpoints/${created.id}`, owner());
    expect(fetched.status).toBe(200);
    const { secret, ...withoutSecret } = created;
    expect(fetched.json).toEqual(withoutSecret);
    const read = await call('GET', `/webhooks/endpoints/${created.id}/secret`, owner());
    expect(read.json).toEqual({ secret });
  });

  it('keeps every supplied field, in the documented order', async () => {
    const headers = { Authorization: 'Bearer x', 'X-Team': 'garden' };
    const created = await create({
      url: 'https://example.com/all',
      eventTypes: ['plant.deleted', 'plant.created'],
      description: 'all of it',
      secret: SECRET,
      rateLimit: 5,
      headers,
      ordering: 'plant',
    });
    expect(Object.keys(created)).toEqual([
      'id',
      'url',
      'kind',
      'eventTypes',
      'description',
      'rateLimit',
      'headers',
      'ordering',
      'status',
      'createdAt',
      'updatedAt',
      'secret',
    ]);
    expect(created).toMatchObject({
      eventTypes: ['plant.deleted', 'plant.created'],
      description: 'all of it',
      rateLimit: 5,
      headers,
      ordering: 'plant',
      secret: SECRET,
    });
    expect((await call('PATCH', `/webhooks/endpoints/${created.id}`, owner({ ordering: 'none' }))).json).toMatchObject({ ordering: 'none', headers });
    expect((await call('GET', `/webhooks/endpoints/${created.id}`, owner())).json).toMatchObject({ headers });
    // Replaced as a whole; null and {} remove them.
    expect((await call('PATCH', `/webhooks/endpoints/${created.id}`, owner({ headers: { 'X-New': '1' } }))).json).toMatchObject({ headers: { 'X-New': '1' } });
    expect((await call('PATCH', `/webhooks/endpoints/${created.id}`, owner({ headers: {} }))).json).not.toHaveProperty('headers');
    await call('PATCH', `/webhooks/endpoints/${created.id}`, owner({ headers }));
    expect((await call('PATCH', `/webhooks/endpoints/${created.id}`, owner({ headers: null }))).json).not.toHaveProperty('headers');
    const keyed = await create({ url: 'https://example.com/ed25519', signature: 'ed25519' });
    expect(keyed.secret).toMatch(/^whpk_[A-Za-z0-9+/]{43}=$/);
    expect((await call('GET', `/webhooks/endpoints/${keyed.id}/secret`, owner())).json).toEqual({ secret: keyed.secret });
  });

  it('updates with PATCH: changes only what is given; status disabled carries a reason, enabled clears it', async () => {
    const { id, createdAt } = await create({ url: 'https://example.com/patch', description: 'before' });
    const empty = await call('PATCH', `/webhooks/endpoints/${id}`, owner({}));
    expect(empty.status).toBe(200);
    expect(empty.json).toMatchObject({ id, url: 'https://example.com/patch', description: 'before', status: 'enabled' });
    const disabled = await call(
      'PATCH',
      `/webhooks/endpoints/${id}`,
      owner({ status: 'disabled', url: 'https://example.com/moved', eventTypes: ['plant.deleted'], rateLimit: 3 }),
    );
    expect(disabled.status).toBe(200);
    expect(disabled.json).toMatchObject({
      id,
      url: 'https://example.com/moved',
      eventTypes: ['plant.deleted'],
      description: 'before',
      rateLimit: 3,
      status: 'disabled',
      disabledReason: 'disabled by the tenant',
      createdAt,
    });
    expect(Date.parse((disabled.json as EndpointJson).updatedAt)).toBeGreaterThanOrEqual(Date.parse(createdAt));
    const enabled = await call('PATCH', `/webhooks/endpoints/${id}`, owner({ status: 'enabled' }));
    expect(enabled.json).toMatchObject({ status: 'enabled' });
    expect(enabled.json).not.toHaveProperty('disabledReason');
    expect((await call('GET', `/webhooks/endpoints/${id}`, owner())).json).toEqual(enabled.json);
  });

  it('rotates the secret: a new one by default, a supplied one, an empty body or none at all', async () => {
    const { id, secret } = await create({ url: 'https://example.com/rotate', secret: SECRET });
    const rotated = await call('POST', `/webhooks/endpoints/${id}/rotate-secret`, { token: TOKENS.owner });
    expect(rotated.status).toBe(200);
    const fresh = (rotated.json as { secret: string }).secret;
    expect(fresh).toMatch(/^whsec_/);
    expect(fresh).not.toBe(secret);
    expect((await call('GET', `/webhooks/endpoints/${id}/secret`, owner())).json).toEqual({ secret: fresh });
    const chosen = await call('POST', `/webhooks/endpoints/${id}/rotate-secret`, owner({ secret: OTHER_SECRET }));
    expect(chosen.json).toEqual({ secret: OTHER_SECRET });
    const emptyObject = await call('POST', `/webhooks/endpoints/${id}/rotate-secret`, owner({}));
    expect(emptyObject.status).toBe(200);
    // Generated clients label an absent body JSON.
    const emptyJson = await call('POST', `/webhooks/endpoints/${id}/rotate-secret`, { token: TOKENS.owner, body: '' });
    expect(emptyJson.status).toBe(200);
    expectError(await call('POST', `/webhooks/endpoints/${id}/rotate-secret`, owner({ secret: 'not-a-secret' })), 400, /secret/);
    expectError(await call('POST', `/webhooks/endpoints/${id}/rotate-secret`, owner({ secrets: OTHER_SECRET })), 400, /secrets/);
  });

  it('recovers: 202 with how many were queued again (none yet)', async () => {
    const { id } = await create({ url: 'https://example.com/recover' });
    const recovered = await call('POST', `/webhooks/endpoints/${id}/recover`, owner({ since: '2020-01-01T00:00:00Z' }));
    expect(recovered.status).toBe(202);
    expect(recovered.json).toEqual({ requeued: 0 });
    expectError(await call('POST', `/webhooks/endpoints/${id}/recover`, owner({ since: 'yesterday' })), 400, /since/);
    expectError(await call('POST', `/webhooks/endpoints/${id}/recover`, owner({})), 400, /since/);
  });

  it('deletes: 204, then 404 on every route of it', async () => {
    const { id } = await create({ url: 'https://example.com/delete' });
    const deleted = await call('DELETE', `/webhooks/endpoints/${id}`, owner());
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expectError(await call('GET', `/webhooks/endpoints/${id}`, owner()), 404, new RegExp(id));
    expectError(await call('DELETE', `/webhooks/endpoints/${id}`, owner()), 404);
    expectError(await call('GET', `/webhooks/endpoints/${id}/secret`, owner()), 404);
  });

  it('lists in keyset pages of ascending ids with a Link to the next page, and all at once', async () => {
    const token = TOKENS.otherTenant;
    const ids: string[] = [];
    for (let index = 0; index < 5; index++) ids.push((await create({ url: `https://example.com/page/${index}` }, token)).id);
    ids.sort();
    const all = await call('GET', '/webhooks/endpoints', { token });
    expect(all.status).toBe(200);
    expect(all.headers.get('link')).toBeNull();
    expect((all.json as EndpointJson[]).map((endpoint) => endpoint.id)).toEqual(ids);
    expect((all.json as EndpointJson[]).every((endpoint) => !('secret' in endpoint))).toBe(true);

    const seen: string[] = [];
    let path: string | undefined = '/webhooks/endpoints?limit=2';
    while (path !== undefined) {
      const page = await call('GET', path, { token });
      expect(page.status).toBe(200);
      const items = page.json as EndpointJson[];
      seen.push(...items.map((endpoint) => endpoint.id));
      const link = page.headers.get('link');
      path = link === null ? undefined : /^<([^>]+)>; rel="next"$/.exec(link)![1];
      if (path !== undefined) expect(path).toBe(`/webhooks/endpoints?limit=2&after=${items.at(-1)!.id}`);
    }
    expect(seen).toEqual(ids);
    const exact = await call('GET', `/webhooks/endpoints?limit=5`, { token });
    expect(exact.headers.get('link')).toBeNull();
    const tail = await call('GET', `/webhooks/endpoints?after=${ids[3]}&cachebuster=1`, { token });
    expect((tail.json as EndpointJson[]).map((endpoint) => endpoint.id)).toEqual([ids[4]]);
  });

  it('refuses bad list parameters with a 400 naming them; ignores unknown ones', async () => {
    for (const [query, name] of [
      ['limit=', 'limit'],
      ['limit=abc', 'limit'],
      ['limit=1.5', 'limit'],
      ['limit=-1', 'limit'],
      ['limit=0', 'limit'],
      ['limit=1&limit=2', 'limit'],
      ['after=', 'after'],
      ['after=a&after=b', 'after'],
      ['after=%E2%82', 'after'],
    ] as const) {
      expectError(await call('GET', `/webhooks/endpoints?${query}`, owner()), 400, new RegExp(`^${name}\\b`));
    }
    expect((await call('GET', '/webhooks/endpoints?foo=1&foo=2&bar', owner())).status).toBe(200);
  });

  it('validates bodies: unknown properties, bad values, JSON, media type and size', async () => {
    const post = (body: string, headers?: Record<string, string>) => call('POST', '/webhooks/endpoints', { token: TOKENS.owner, body, headers });
    expectError(await post('{"url":"https://example.com/x","urls":1}'), 400, /urls/);
    expectError(await post('{}'), 400, /url/);
    expectError(await post('{"url":"ftp://example.com/x"}'), 400, /^url must be an absolute http or https URL/);
    expectError(await post('{"url":"https://user:pw@example.com/x"}'), 400, /credentials/);
    expectError(await post(JSON.stringify({ url: `https://example.com/${'x'.repeat(2048)}` })), 400, /url must be at most 2048/);
    expectError(await post('{"url":"https://example.com/x","eventTypes":[]}'), 400, /eventTypes/);
    expectError(await post('{"url":"https://example.com/x","eventTypes":["plant.eaten"]}'), 400, /eventTypes/);
    expectError(await post('{"url":"https://example.com/x","eventTypes":["plant.created","plant.created"]}'), 400, /eventTypes/);
    expectError(await post(JSON.stringify({ url: 'https://example.com/x', description: 'd'.repeat(513) })), 400, /description/);
    expectError(await post('{"url":"https://example.com/x","secret":"whsec_c2hvcnQ="}'), 400, /secret/);
    expectError(await post('{"url":"https://example.com/x","rateLimit":0}'), 400, /rateLimit/);
    expectError(await post('{"url":"https://example.com/x","rateLimit":1.5}'), 400, /rateLimit/);
    expectError(await post('{"url":"https://example.com/x","status":"disabled"}'), 400, /status/);
    expectError(await post('{"url":"https://example.com/x","ordering":"fifo"}'), 400, /^ordering must be "none" or "plant"/);
    expectError(await post('{"url":"https://example.com/x","ordering":null}'), 400, /^ordering must be "none" or "plant"/);
    const withFilter = (filter: unknown) => post(JSON.stringify({ url: 'https://example.com/x', filter }));
    for (const operator of ['$where', '$regex', '$function', '$elemMatch', '$expr', '$jsonSchema']) {
      expectError(await withFilter({ 'data.name': { [operator]: 'x' } }), 400, new RegExp(`^filter\\.data\\.name\\.\\${operator} is not an operator`));
    }
    expectError(await withFilter({ $where: 'true' }), 400, /^filter\.\$where /);
    expectError(await withFilter({ $or: [{ type: 'plant.created' }, { 'data.tag': { $size: 1 } }] }), 400, /^filter\.\$or\.1\.data\.tag\.\$size /);
    expectError(await withFilter({ plant: 'x' }), 400, /^filter\.plant is not a field of the event/);
    expectError(await withFilter([]), 400, /^filter must be a JSON object of at most 4096 bytes/);
    expectError(
      await withFilter({ 'data.tag': { $in: Array.from({ length: 600 }, (_, index) => `t${index}`) } }),
      400,
      /^filter must be a JSON object of at most 4096 bytes/,
    );
    expectError(await withFilter({ $or: [{ $or: [{ $or: [{ $or: [{ type: 'plant.created' }] }] }] }] }), 400, /nests deeper than 8 levels/);
    const withHeaders = (headers: unknown) => post(JSON.stringify({ url: 'https://example.com/x', headers }));
    expectError(await withHeaders([]), 400, /^headers must be an object/);
    expectError(
      await withHeaders(Object.fromEntries(Array.from({ length: 21 }, (_, index) => [`x-h${index}`, 'v']))),
      400,
      /^headers must be an object of at most 20/,
    );
    expectError(await withHeaders({ 'bad name': 'v' }), 400, /^headers\.bad name is not a header name/);
    for (const name of [
      'Content-Type',
      'content-length',
      'Host',
      'user-agent',
      'traceparent',
      'TraceState',
      'Webhook-Signature',
      'webhook-anything',
      'plant-store-event',
    ]) {
      expectError(await withHeaders({ [name]: 'v' }), 400, new RegExp(`^headers\\.${name} is set by the service`));
    }
    expectError(await withHeaders({ 'X-A': 'a', 'x-a': 'b' }), 400, /^headers\.x-a names a header twice/);
    expectError(await withHeaders({ 'X-A': 'a\r\nX-Injected: 1' }), 400, /^headers\.X-A must be a string of at most 1024/);
    expectError(await withHeaders({ 'X-A': 'a\nb' }), 400, /^headers\.X-A must be/);
    expectError(await withHeaders({ 'X-A': 'x'.repeat(1025) }), 400, /^headers\.X-A must be/);
    expectError(await withHeaders({ 'X-A': 1 }), 400, /^headers\.X-A must be/);
    expect((await withHeaders({ 'X-A': 'x'.repeat(1024) })).status).toBe(201);
    expectError(await post('{"url":"https://example.com/x","signature":"rsa"}'), 400, /^signature must be "hmac" or "ed25519"/);
    expectError(
      await post(JSON.stringify({ url: 'https://example.com/x', signature: 'ed25519', secret: SECRET })),
      400,
      /^secret cannot be given for an ed25519 endpoint/,
    );
    expectError(await post('{"url":'), 400, /not valid JSON/);
    // A key named twice, at any depth, whatever else the body holds (URLs often contain digits like "7.0").
    expectError(await post('{"url":"https://example.com/v7.0","url":"https://example.com/x"}'), 400, /^body is not valid JSON: duplicate key "url"$/);
    expectError(
      await post('{"url":"https://example.com/x","eventTypes":["plant.created"],"rateLimit":{"perSecond":1,"perSecond":2}}'),
      400,
      /^body is not valid JSON: duplicate key "perSecond"$/,
    );
    expect((await post('{"url":"https://example.com/v7.0","description":"release 2.0","eventTypes":["plant.created"]}')).status).toBe(201);
    expectError(await post('[]'), 400);
    expectError(await post('{"url":"https://example.com/x"}', { 'content-type': 'text/plain' }), 415);
    expectError(await post(JSON.stringify({ url: 'https://example.com/x', description: 'x'.repeat(70_000) })), 413);
    const { id } = await create({ url: 'https://example.com/patch-validation' });
    expectError(await call('PATCH', `/webhooks/endpoints/${id}`, owner({ status: 'paused' })), 400, /status/);
    expectError(await call('PATCH', `/webhooks/endpoints/${id}`, owner({ secret: SECRET })), 400, /secret/);
    expectError(await call('PATCH', `/webhooks/endpoints/${id}`, owner({ headers: { Host: 'evil' } })), 400, /^headers\.Host is set by the service/);
    expectError(await call('PATCH', `/webhooks/endpoints/${id}`, owner({ signature: 'ed25519' })), 400, /signature/);
    const onlyWhenEnabling = /^(parked|parkedSince) applies when enabling: send it with "status": "enabled"$/;
    expectError(await call('PATCH', `/webhooks/endpoints/${id}`, owner({ parked: 'replay' })), 400, onlyWhenEnabling);
    expectError(await call('PATCH', `/webhooks/endpoints/${id}`, owner({ status: 'disabled', parked: 'discard' })), 400, /^parked applies/);
    expectError(await call('PATCH', `/webhooks/endpoints/${id}`, owner({ parkedSince: '2026-01-02T03:04:05Z' })), 400, /^parkedSince applies when/);
    expectError(await call('PATCH', `/webhooks/endpoints/${id}`, owner({ status: 'enabled', parked: 'later' })), 400, /^parked must be "replay" or "discard"/);
    expectError(await call('PATCH', `/webhooks/endpoints/${id}`, owner({ status: 'enabled', parkedSince: 'today' })), 400, /^parkedSince must be an RFC 3339/);
    expectError(
      await call('PATCH', `/webhooks/endpoints/${id}`, owner({ status: 'enabled', parked: 'discard', parkedSince: '2026-01-02T03:04:05Z' })),
      400,
      /^parkedSince applies to a replay/,
    );
    for (const body of [
      { status: 'enabled', parked: 'replay' },
      { status: 'enabled', parkedSince: '2026-01-02T03:04:05Z' },
      { status: 'enabled', parked: 'discard' },
    ]) {
      expect((await call('PATCH', `/webhooks/endpoints/${id}`, owner(body))).json).toMatchObject({ id, status: 'enabled' });
    }
    expectError(
      await call('PATCH', `/webhooks/endpoints/${id}`, { token: TOKENS.owner, body: '{}', headers: { 'content-type': 'application/merge-patch+json' } }),
      415,
    );
  });

  it.each(['127.1', '[::1]', '[::ffff:127.0.0.1]', '0x7f.1', '2130706433', '169.254.169.254', '10.0.0.1', '0.0.0.0', '[fd00::1]', '224.0.0.1'])(
    'refuses a non-public literal host %s at create and at update (400)',
    async (host) => {
      const url = `http://${host}:8080/hook`;
      expectError(await call('POST', '/webhooks/endpoints', owner({ url })), 400, /^url must not point to a private/);
      const { id } = await create({ url: 'https://example.com/ssrf' });
      expectError(await call('PATCH', `/webhooks/endpoints/${id}`, owner({ url })), 400, /^url must not point to a private/);
      expect((await call('GET', `/webhooks/endpoints/${id}`, owner())).json).toMatchObject({ url: 'https://example.com/ssrf' });
    },
  );

  it('decodes percent-encoded ids and refuses malformed ones (400 naming id)', async () => {
    const { id } = await create({ url: 'https://example.com/encoded' });
    const encoded = [...id].map((char) => `%${char.charCodeAt(0).toString(16).padStart(2, '0')}`).join('');
    expect((await call('GET', `/webhooks/endpoints/${encoded}`, owner())).json).toMatchObject({ id });
    expectError(await call('GET', '/webhooks/endpoints/%E2%82', owner()), 400, /^id\b/);
    expectError(await call('GET', '/webhooks/endpoints/%00', owner()), 400, /^id\b/);
    expectError(await call('GET', `/webhooks/endpoints/${'x'.repeat(300)}`, owner()), 400, /^id\b/);
    expectError(await call('GET', '/webhooks/endpoints/ep_nope', owner()), 404, /ep_nope/);
    expectError(await call('GET', '/webhooks/deliveries/%FF', owner()), 400, /^id\b/);
  });

  it('answers unknown paths 404 and other methods 405 with Allow, before authentication', async () => {
    for (const path of [
      '/webhooks',
      '/webhooks/',
      '/webhooks/endpoints/',
      '/webhooks/endpoints/x/y',
      '/webhooks/endpoints/x/resend',
      '/webhooks/deliveries/x/secret',
      '/webhooks/deliveries//resend',
      '/webhooks/subscriptions',
    ]) {
      expectError(await call('GET', path), 404);
    }
    for (const [method, path, allow] of [
      ['PUT', '/webhooks/endpoints', 'GET, HEAD, POST'],
      ['POST', '/webhooks/endpoints/ep_x', 'GET, HEAD, PATCH, DELETE'],
      ['PUT', '/webhooks/endpoints/ep_x/secret', 'GET, HEAD'],
      ['GET', '/webhooks/endpoints/ep_x/rotate-secret', 'POST'],
      ['GET', '/webhooks/endpoints/ep_x/recover', 'POST'],
      ['POST', '/webhooks/deliveries', 'GET, HEAD'],
      ['DELETE', '/webhooks/deliveries/msg_x', 'GET, HEAD'],
      ['GET', '/webhooks/deliveries/msg_x/resend', 'POST'],
    ] as const) {
      const response = await call(method, path);
      expectError(response, 405);
      expect(response.headers.get('allow')).toBe(allow);
    }
  });

  it('HEAD is GET without a body', async () => {
    const { id } = await create({ url: 'https://example.com/head' });
    const head = await call('HEAD', `/webhooks/endpoints/${id}`, owner());
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    expect(Number(head.headers.get('content-length'))).toBe((await call('GET', `/webhooks/endpoints/${id}`, owner())).text.length);
  });

  describe('auth order and scopes', () => {
    let id: string;
    beforeAll(async () => {
      id = (await create({ url: 'https://example.com/scopes' })).id;
    });
    const routes = (): [method: string, path: string, scope: 'read' | 'write', body?: string][] => [
      ['GET', '/webhooks/endpoints', 'read'],
      ['POST', '/webhooks/endpoints', 'write', '{"url":"https://example.com/x"}'],
      ['GET', `/webhooks/endpoints/${id}`, 'read'],
      ['PATCH', `/webhooks/endpoints/${id}`, 'write', '{"description":"x"}'],
      ['DELETE', `/webhooks/endpoints/${id}`, 'write'],
      ['GET', `/webhooks/endpoints/${id}/secret`, 'write'],
      ['POST', `/webhooks/endpoints/${id}/rotate-secret`, 'write', '{}'],
      ['POST', `/webhooks/endpoints/${id}/recover`, 'write', '{"since":"2020-01-01T00:00:00Z"}'],
      ['GET', '/webhooks/deliveries', 'read'],
      ['GET', '/webhooks/deliveries/msg_nope', 'read'],
      ['POST', '/webhooks/deliveries/msg_nope/resend', 'write'],
    ];

    it('401 without or with an unknown token, whatever the input', async () => {
      for (const [method, path, , body] of routes()) {
        const missing = await call(method, `${path}?limit=bad`, { body: body ?? undefined });
        expectError(missing, 401);
        expect(missing.headers.get('www-authenticate')).toBe('Bearer realm="plant-store"');
        expectError(await call(method, path, { token: 'nope', body: method === 'GET' ? undefined : '{"bad json' }), 401);
      }
    });

    it('403 naming the scope for a token without it, before the input is looked at', async () => {
      for (const [method, path, scope] of routes()) {
        // webhooks:read only: refused on writes; plants scopes only: refused on everything.
        const tokens = scope === 'write' ? [TOKENS.webhookReader, TOKENS.reader] : [TOKENS.reader, TOKENS.writer];
        for (const token of tokens) {
          const body = method === 'GET' ? undefined : '{"bad json';
          const response = await call(method, `${path}?limit=bad`, { token, body, headers: { 'content-type': 'text/plain' } });
          expectError(response, 403);
          expect(response.headers.get('www-authenticate')).toBe(`Bearer realm="plant-store", error="insufficient_scope", scope="webhooks:${scope}"`);
        }
      }
      expect((await call('GET', '/webhooks/endpoints', { token: TOKENS.webhookReader })).status).toBe(200);
      expect((await call('GET', `/webhooks/endpoints/${id}`, { token: TOKENS.webhookReader })).status).toBe(200);
    });

    it("another tenant's endpoint is a 404 on every route, and is left unchanged", async () => {
      const before = (await call('GET', `/webhooks/endpoints/${id}`, owner())).json;
      const secret = (await call('GET', `/webhooks/endpoints/${id}/secret`, owner())).json;
      for (const [method, path, , body] of routes()) {
        if (!path.includes(id)) continue;
        expectError(await call(method, path, { token: TOKENS.otherTenant, body }), 404, new RegExp(id));
      }
      const listed = (await call('GET', '/webhooks/endpoints', { token: TOKENS.otherTenant })).json as EndpointJson[];
      expect(listed.map((endpoint) => endpoint.id)).not.toContain(id);
      expect((await call('GET', `/webhooks/endpoints/${id}`, owner())).json).toEqual(before);
      expect((await call('GET', `/webhooks/endpoints/${id}/secret`, owner())).json).toEqual(secret);
    });
  });
});

describe.each<AnyStorageKind>([...STORAGE_KINDS, ...(postgresAvailable ? (['postgres'] as const) : [])])(
  'custom header names the service or its HTTP client owns (%s storage)',
  (kind) => {
    let server: TestServer;
    beforeAll(async () => {
      server = await startTestServer(kind);
    });
    afterAll(() => server.close());
    const call = (method: string, path: string, body: unknown) => api(server.url, method, path, { token: TOKENS.owner, body: JSON.stringify(body) });
    const SERVICE =
      /is set by the service on every attempt \(as are content-type, content-length, host, user-agent, traceparent, tracestate, plant-store-event\)$/;
    const WEBHOOK = /is set by the service \(every webhook-\* header is Standard Webhooks' own\)$/;
    const OWNED = "governs the connection or the request's framing, which the service's HTTP client owns";
    const CONNECTION = new RegExp(`${OWNED} \\(as do connection, keep-alive, transfer-encoding, te, trailer, upgrade, http2-settings, expect\\)$`);
    const PROXY = new RegExp(`${OWNED} \\(every proxy-\\* header is addressed to a proxy\\)$`);

    // Each was accepted once, and then every attempt failed (Node's client throws for Trailer, undici refuses most of the rest).
    it.each<[string, RegExp]>([
      ['Trailer', CONNECTION],
      ['TE', CONNECTION],
      ['Expect', CONNECTION],
      ['Upgrade', CONNECTION],
      ['Keep-Alive', CONNECTION],
      ['Connection', CONNECTION],
      ['Transfer-Encoding', CONNECTION],
      ['HTTP2-Settings', CONNECTION],
      ['Proxy-Authorization', PROXY],
      ['proxy-connection', PROXY],
      ['Proxy-Anything', PROXY],
      ['Content-Length', SERVICE],
      ['Host', SERVICE],
      ['Webhook-Signature', WEBHOOK],
      ...[...RESERVED_HEADER_NAMES].map((name): [string, RegExp] => [name, SERVICE]),
      ...[...CONNECTION_HEADER_NAMES].map((name): [string, RegExp] => [name.toUpperCase(), CONNECTION]),
    ])('refuses %s at create and at update, naming it (400), and keeps the headers there were', async (name, reason) => {
      const expected = new RegExp(`^headers\\.${name} ${reason.source}`);
      const refused = await call('POST', '/webhooks/endpoints', { url: 'https://example.com/hook', headers: { 'X-Team': 'garden', [name]: 'v' } });
      expectError(refused, 400, expected);
      const created = await call('POST', '/webhooks/endpoints', { url: 'https://example.com/hook', headers: { 'X-Team': 'garden' } });
      expect(created.status, created.text).toBe(201);
      const { id } = created.json as EndpointJson;
      expectError(await call('PATCH', `/webhooks/endpoints/${id}`, { headers: { [name]: 'v' } }), 400, expected);
      expect((await api(server.url, 'GET', `/webhooks/endpoints/${id}`, { token: TOKENS.owner })).json).toMatchObject({ headers: { 'X-Team': 'garden' } });
      expect((await api(server.url, 'DELETE', `/webhooks/endpoints/${id}`, { token: TOKENS.owner })).status).toBe(204);
    });

    it('accepts names that only look like them', async () => {
      const headers = { 'X-Proxy-Id': '1', Teapot: '2', Trailers: '3', 'X-Upgrade': '4', Expected: '5', 'X-Webhook-Id': '6', Authorization: 'Bearer x' };
      const created = await call('POST', '/webhooks/endpoints', { url: 'https://example.com/hook', headers });
      expect(created.status, created.text).toBe(201);
      expect(created.json).toMatchObject({ headers });
      expect((await api(server.url, 'DELETE', `/webhooks/endpoints/${(created.json as EndpointJson).id}`, { token: TOKENS.owner })).status).toBe(204);
    });
  },
);

describe('webhook endpoints under a base path', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('memory', { basePath: '/api/v1' });
  });
  afterAll(() => server.close());

  it('routes below the base path and writes Links that carry it', async () => {
    for (let index = 0; index < 3; index++) {
      const created = await fetch(`${server.url}/api/v1/webhooks/endpoints`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKENS.owner}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: `https://example.com/base/${index}` }),
      });
      expect(created.status).toBe(201);
    }
    const page = await fetch(`${server.url}/api/v1/webhooks/endpoints?limit=1`, { headers: { authorization: `Bearer ${TOKENS.owner}` } });
    const [first] = (await page.json()) as EndpointJson[];
    expect(page.headers.get('link')).toBe(`</api/v1/webhooks/endpoints?limit=1&after=${first!.id}>; rel="next"`);
    const deliveries = await fetch(`${server.url}/api/v1/webhooks/deliveries`, { headers: { authorization: `Bearer ${TOKENS.owner}` } });
    expect(deliveries.status).toBe(200);
  });
});

describe.each(STORAGE_KINDS)('endpoints per tenant are capped (%s storage)', (kind) => {
  const servers: TestServer[] = [];
  afterAll(() => Promise.all(servers.map((server) => server.close())));
  const start = async (webhooks?: { maxEndpointsPerTenant: number }) => {
    const server = await startTestServer(kind, webhooks ? { webhooks } : {});
    servers.push(server);
    return (method: string, path: string, token: string, body?: unknown) =>
      api(server.url, method, path, { token, body: body === undefined ? undefined : JSON.stringify(body) });
  };

  it('allows 50 endpoints by default; the 51st is a 422 naming the limit, and creates nothing', async () => {
    const call = await start();
    for (let index = 0; index < 50; index++) {
      const response = await call('POST', '/webhooks/endpoints', TOKENS.owner, { url: `https://example.com/cap/${index}` });
      expect(response.status, response.text).toBe(201);
    }
    const refused = await call('POST', '/webhooks/endpoints', TOKENS.owner, { url: 'https://example.com/cap/50' });
    expectError(refused, 422);
    expect(refused.json).toEqual({ error: 422, message: 'a tenant may have at most 50 webhook endpoints' });
    const listed = await call('GET', '/webhooks/endpoints?limit=1000', TOKENS.owner);
    expect((listed.json as EndpointJson[]).map((endpoint) => endpoint.url)).not.toContain('https://example.com/cap/50');
    expect(listed.json).toHaveLength(50);
    // Another tenant has a cap of its own.
    expect((await call('POST', '/webhooks/endpoints', TOKENS.otherTenant, { url: 'https://example.com/b' })).status).toBe(201);
  });

  it('holds the configured cap; deleting an endpoint makes room again', async () => {
    const call = await start({ maxEndpointsPerTenant: 2 });
    const first = await call('POST', '/webhooks/endpoints', TOKENS.owner, { url: 'https://example.com/1' });
    expect((await call('POST', '/webhooks/endpoints', TOKENS.owner, { url: 'https://example.com/2' })).status).toBe(201);
    const refused = await call('POST', '/webhooks/endpoints', TOKENS.owner, { url: 'https://example.com/3' });
    expect(refused.json).toEqual({ error: 422, message: 'a tenant may have at most 2 webhook endpoints' });
    expect((await call('DELETE', `/webhooks/endpoints/${(first.json as EndpointJson).id}`, TOKENS.owner)).status).toBe(204);
    expect((await call('POST', '/webhooks/endpoints', TOKENS.owner, { url: 'https://example.com/3' })).status).toBe(201);
  });
});
