import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { NotFoundError, createPlantStoreClient, type Plant } from '@plant-store/client';
import { api, expectObservationsDocumented, type ApiRequest } from '../support/api-client.js';
import { STORAGE_KINDS } from '../support/storage-kind.js';
import { HTTP_FRONTS } from '../support/http-front.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { TOKENS } from '../support/test-tokens.js';

const MAX = '9223372036854775807';
const MIN = '-9223372036854775808';

expectObservationsDocumented();

describe.each(STORAGE_KINDS.flatMap((kind) => HTTP_FRONTS.map((front) => [kind, front] as const)))('plants API over HTTP (%s storage, %s)', (kind, front) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind, { front });
  });
  afterAll(() => server.close());

  // Each test works in its own id range so tests stay independent.
  let nextBase = 0;
  let base = 0;
  beforeEach(() => {
    base = ++nextBase * 1000;
  });

  const call = (method: string, path: string, request: ApiRequest = {}) => api(server.url, method, path, request);
  const create = (body: string, token: string = TOKENS.owner) => call('POST', '/plants', { token, body });
  const expectError = (response: { status: number; json: unknown; headers: Headers }, status: number, message?: RegExp) => {
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.json).toEqual({ error: status, message: expect.any(String) });
    if (message) expect((response.json as { message: string }).message).toMatch(message);
  };

  describe('POST /plants', () => {
    it('creates a plant and returns it with 200', async () => {
      const response = await create(`{"id":${base},"name":"Fern","tag":"green"}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/json');
      expect(response.text).toBe(`{"id":${base},"name":"Fern","tag":"green"}`);
      expect((await call('GET', `/plants/${base}`, { token: TOKENS.owner })).text).toBe(response.text);
    });

    it('omits an absent tag from the output', async () => {
      const response = await create(`{"name":"Cactus","id":${base}}`);
      expect(response.text).toBe(`{"id":${base},"name":"Cactus"}`);
    });

    it.each([
      [MAX, MAX],
      [MIN, MIN],
    ])('keeps int64 extreme %s exact through create, get and list', async (id, expected) => {
      const body = `{"id":${id},"name":"extreme"}`;
      const created = await create(body, TOKENS.otherTenant);
      expect(created.status).toBe(200);
      expect(created.text).toBe(`{"id":${expected},"name":"extreme"}`);
      const fetched = await call('GET', `/plants/${id}`, { token: TOKENS.otherTenant });
      expect(fetched.text).toBe(created.text);
      const query = id === MIN ? '?limit=1' : `?after=${BigInt(id) - 1n}&limit=1`;
      const listed = await call('GET', `/plants${query}`, { token: TOKENS.otherTenant });
      expect(listed.text).toBe(`[${created.text}]`);
      const deleted = await call('DELETE', `/plants/${id}`, { token: TOKENS.otherTenant });
      expect(deleted.status).toBe(204);
    });

    it.each([
      ['20.0', '20'],
      ['2e1', '20'],
      ['2E+1', '20'],
      ['200e-1', '20'],
      ['-0', '0'],
    ])('accepts the integer spelling %s', async (spelling, id) => {
      // Each spelling goes to its own tenant-free slot: delete afterwards.
      const response = await create(`{"id":${spelling},"name":"spelled"}`);
      expect(response.status).toBe(200);
      expect(response.text).toBe(`{"id":${id},"name":"spelled"}`);
      expect((await call('DELETE', `/plants/${id}`, { token: TOKENS.owner })).status).toBe(204);
    });

    it.each(['1.5', '"5"', '9223372036854775808', '-9223372036854775809', '1e19', 'null', 'true', '[]', '{}'])(
      'rejects the id %s with a 400 naming id',
      async (spelling) => {
        expectError(await create(`{"id":${spelling},"name":"bad"}`), 400, /\bid\b/);
      },
    );

    it('rejects tag: null, empty and over-long fields, naming them', async () => {
      expectError(await create(`{"id":${base},"name":"a","tag":null}`), 400, /\btag\b/);
      expectError(await create(`{"id":${base},"name":"a","tag":""}`), 400, /\btag\b/);
      expectError(await create(`{"id":${base},"name":"a","tag":"${'t'.repeat(65)}"}`), 400, /\btag\b/);
      expectError(await create(`{"id":${base},"name":""}`), 400, /\bname\b/);
      expectError(await create(`{"id":${base},"name":"${'n'.repeat(257)}"}`), 400, /\bname\b/);
      expectError(await create(`{"id":${base}}`), 400, /name is required/);
      expectError(await create(`{"name":"a"}`), 400, /id is required/);
      expect((await call('GET', `/plants/${base}`, { token: TOKENS.owner })).status).toBe(404);
    });

    it('counts name length in characters, not UTF-16 units or bytes', async () => {
      const name = '🌵'.repeat(256);
      const response = await create(JSON.stringify({ id: base, name }));
      expect(response.status).toBe(200);
      expect(response.json).toEqual({ id: base, name });
    });

    it('rejects an unknown property, naming it', async () => {
      expectError(await create(`{"id":${base},"name":"a","tags":"x"}`), 400, /unknown property 'tags'/);
    });

    it.each(['[]', '"plant"', '42', 'null'])('rejects the non-object body %s', async (body) => {
      expectError(await create(body), 400, /object/);
    });

    it('rejects invalid JSON and an empty body', async () => {
      expectError(await create(`{"id":${base},"name":"a"`), 400, /body is not valid JSON/);
      expectError(await create(''), 400, /body is not valid JSON/);
      expectError(await create('{"id":1,"name":"a",}'), 400, /body is not valid JSON/);
    });

    it('refuses a key named twice with 400 naming it, whatever else the body holds', async () => {
      // Before, the first got 200 (the last id won) and the second 400: digits like "2.0" in a string chose the parser.
      for (const [body, key] of [
        [`{"id":${base + 10},"id":${base + 11},"name":"dup"}`, 'id'],
        [`{"id":${base + 12},"id":${base + 13},"name":"v2.0"}`, 'id'],
        [`{"id":${base + 14},"name":"a","tag":"t","name":"b"}`, 'name'],
        [`{"id":${base + 15},"name":"a","tag":"7.0","tag":"7.0"}`, 'tag'],
      ]) {
        expectError(await create(body!), 400, new RegExp(`^body is not valid JSON: duplicate key "${key}"$`));
      }
      expect((await call('GET', `/plants?after=${base}&limit=100`, { token: TOKENS.owner })).json).toEqual([]);
      // The same bodies without the duplicate are fine.
      expect((await create(`{"id":${base + 11},"name":"dup"}`)).status).toBe(200);
      expect((await create(`{"id":${base + 13},"name":"v2.0"}`)).status).toBe(200);
    });

    it('rejects a body that is not valid UTF-8', async () => {
      const bytes = Buffer.concat([Buffer.from(`{"id":${base},"name":"`), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]);
      expectError(await call('POST', '/plants', { token: TOKENS.owner, body: bytes }), 400, /UTF-8/);
      const surrogate = Buffer.concat([Buffer.from(`{"id":${base},"name":"`), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}')]);
      expectError(await call('POST', '/plants', { token: TOKENS.owner, body: surrogate }), 400, /UTF-8/);
    });

    it('rejects an escaped lone surrogate in a name', async () => {
      expectError(await create(`{"id":${base},"name":"\\ud800"}`), 400, /\bname\b/);
    });

    it('requires content-type application/json (parameters and case allowed)', async () => {
      const body = `{"id":${base},"name":"typed"}`;
      const send = (contentType?: string) =>
        call('POST', '/plants', {
          token: TOKENS.owner,
          body,
          headers: contentType === undefined ? {} : { 'content-type': contentType },
        });
      expectError(await send('text/plain'), 415, /content-type/);
      expectError(await send('application/jsonx'), 415);
      expectError(await send('application/merge-patch+json'), 415);
      expect((await send('Application/JSON; charset=utf-8')).status).toBe(200);
      expect((await send('application/json;charset=UTF-8')).status).toBe(200);
      // fetch sends a string body as text/plain when no content type is set: remove it entirely with raw bytes.
      const missing = await fetch(`${server.url}/plants`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKENS.owner}` },
        body: new Blob([body]),
      });
      expect(missing.status).toBe(415);
      expect(await missing.json()).toEqual({ error: 415, message: expect.stringContaining('content-type') });
    });

    it('is retry-safe: the same create returns 200, different content is a 409', async () => {
      const body = `{"id":${base},"name":"Aloe","tag":"succulent"}`;
      const first = await create(body);
      const replay = await create(`{"tag":"succulent","id":${base}.0,"name":"Aloe"}`);
      expect(first.status).toBe(200);
      expect(replay.status).toBe(200);
      expect(replay.text).toBe(first.text);
      expectError(await create(`{"id":${base},"name":"Aloe vera","tag":"succulent"}`), 409, new RegExp(`${base}`));
      expectError(await create(`{"id":${base},"name":"Aloe","tag":"other"}`), 409);
      expectError(await create(`{"id":${base},"name":"Aloe"}`), 409);
      expect((await call('GET', `/plants/${base}`, { token: TOKENS.owner })).text).toBe(first.text);
    });
  });

  describe('GET and DELETE /plants/{id}', () => {
    it('gets, deletes (204, empty body) and then answers 404', async () => {
      await create(`{"id":${base},"name":"Ivy"}`);
      const deleted = await call('DELETE', `/plants/${base}`, { token: TOKENS.owner });
      expect(deleted.status).toBe(204);
      expect(deleted.text).toBe('');
      expect(deleted.headers.get('content-type')).toBeNull();
      expect(deleted.headers.get('x-request-id')).toBeTruthy();
      expectError(await call('GET', `/plants/${base}`, { token: TOKENS.owner }), 404, new RegExp(`${base}`));
      // The same answer get's NotFoundError gets, though delete builds no error for it.
      expectError(await call('DELETE', `/plants/${base}`, { token: TOKENS.owner }), 404, new RegExp(`^plant ${base} not found$`));
    });

    it.each(['abc', '1.5', '2e1', '+1', ' 1', '9223372036854775808', '-9223372036854775809', '0x10', '1%2F2', '%FF'])(
      'rejects the id segment %s with a 400 naming id',
      async (segment) => {
        expectError(await call('GET', `/plants/${segment}`, { token: TOKENS.owner }), 400, /\bid\b/);
        expectError(await call('DELETE', `/plants/${segment}`, { token: TOKENS.owner }), 400, /\bid\b/);
      },
    );

    it('accepts a percent-encoded id and leading zeros', async () => {
      await create(`{"id":${base + 1},"name":"encoded"}`);
      const encoded = [...String(base + 1)].map((digit) => `%3${digit}`).join('');
      expect((await call('GET', `/plants/${encoded}`, { token: TOKENS.owner })).json).toEqual({ id: base + 1, name: 'encoded' });
      expect((await call('GET', `/plants/000${base + 1}`, { token: TOKENS.owner })).status).toBe(200);
    });

    it('answers 404 for paths beside the id route', async () => {
      for (const path of ['/plants/', `/plants/${base}/`, `/plants/${base}/x`, '//plants', '/plants//1', '/Plants', '/plants%2F1']) {
        const response = await call('GET', path, { token: TOKENS.owner });
        expectError(response, 404);
      }
    });
  });

  describe('tenants and scopes', () => {
    it('isolates tenants completely (through the typed client)', async () => {
      const mine = createPlantStoreClient({ baseUrl: server.url, token: TOKENS.owner });
      const theirs = createPlantStoreClient({ baseUrl: server.url, token: TOKENS.otherTenant });
      await mine.plants.create({ id: base, name: 'mine' });
      await expect(theirs.plants.get(base)).rejects.toBeInstanceOf(NotFoundError);
      await expect(theirs.plants.delete(base)).rejects.toBeInstanceOf(NotFoundError);
      expect(await theirs.plants.create({ id: base, name: 'theirs' })).toEqual({ id: BigInt(base), name: 'theirs' });
      expect((await theirs.plants.listPage({ after: base - 1, limit: 10 })).plants).toEqual([{ id: BigInt(base), name: 'theirs' }]);
      expect(await mine.plants.get(base)).toEqual({ id: BigInt(base), name: 'mine' });
      await theirs.plants.delete(base);
    });

    it('answers 403 with an insufficient_scope challenge naming the scope', async () => {
      const writeChallenge = 'Bearer realm="plant-store", error="insufficient_scope", scope="plants:write"';
      const readChallenge = 'Bearer realm="plant-store", error="insufficient_scope", scope="plants:read"';
      await create(`{"id":${base},"name":"scoped"}`);

      const post = await create(`{"id":${base + 1},"name":"no"}`, TOKENS.reader);
      expectError(post, 403, /plants:write/);
      expect(post.headers.get('www-authenticate')).toBe(writeChallenge);
      const del = await call('DELETE', `/plants/${base}`, { token: TOKENS.reader });
      expectError(del, 403);
      expect(del.headers.get('www-authenticate')).toBe(writeChallenge);
      expect((await call('GET', `/plants/${base}`, { token: TOKENS.reader })).status).toBe(200);
      expect((await call('GET', '/plants?limit=1', { token: TOKENS.reader })).status).toBe(200);

      const get = await call('GET', `/plants/${base}`, { token: TOKENS.writer });
      expectError(get, 403, /plants:read/);
      expect(get.headers.get('www-authenticate')).toBe(readChallenge);
      const list = await call('GET', '/plants', { token: TOKENS.writer });
      expectError(list, 403);
      expect(list.headers.get('www-authenticate')).toBe(readChallenge);
      expect((await create(`{"id":${base + 2},"name":"yes"}`, TOKENS.writer)).status).toBe(200);
    });

    it('checks the scope before the input: a reader posting garbage gets 403', async () => {
      expectError(await call('POST', '/plants', { token: TOKENS.reader, body: '{not json' }), 403);
      expectError(await call('POST', '/plants', { token: TOKENS.reader, body: 'x', headers: { 'content-type': 'text/plain' } }), 403);
      expectError(await call('DELETE', '/plants/abc', { token: TOKENS.reader }), 403);
      expectError(await call('GET', '/plants?limit=abc', { token: TOKENS.writer }), 403);
    });
  });

  describe('authentication', () => {
    const bare = 'Bearer realm="plant-store"';
    const invalid = 'Bearer realm="plant-store", error="invalid_token"';

    it.each([
      ['no header', undefined, bare],
      ['another scheme', `Basic ${Buffer.from('a:b').toString('base64')}`, bare],
      ['the scheme alone', 'Bearer', bare],
      ['the scheme and a space', 'Bearer ', bare],
      ['two tokens', `Bearer ${TOKENS.owner} extra`, bare],
      ['a token without a scheme', TOKENS.owner, bare],
      ['a glued scheme', `Bearer${TOKENS.owner}`, bare],
      ['an unknown token', 'Bearer not-a-token', invalid],
      ['a token with the wrong case', `Bearer ${TOKENS.owner.toUpperCase()}`, invalid],
    ])('answers 401 for %s with the matching challenge', async (_, authorization, challenge) => {
      const headers: Record<string, string> = authorization === undefined ? {} : { authorization };
      for (const [method, path] of [
        ['GET', '/plants'],
        ['POST', '/plants'],
        ['GET', '/plants/1'],
        ['DELETE', '/plants/1'],
      ] as const) {
        const response = await call(method, path, { headers, body: method === 'POST' ? '{"id":1,"name":"a"}' : undefined });
        expectError(response, 401);
        expect(response.headers.get('www-authenticate')).toBe(challenge);
      }
    });

    it('accepts the scheme name in any case', async () => {
      for (const scheme of ['bearer', 'BEARER', 'bEaReR']) {
        const response = await call('GET', '/plants?limit=0', { headers: { authorization: `${scheme} ${TOKENS.owner}` } });
        expect(response.status).toBe(200);
      }
    });

    it('authenticates before anything else about the request', async () => {
      const challenge = (response: { headers: Headers }) => response.headers.get('www-authenticate');
      const cases: [string, string, ApiRequest][] = [
        ['POST', '/plants', { body: '{broken' }],
        ['POST', '/plants', { body: '{"id":"x"}', headers: { 'content-type': 'text/plain' } }],
        ['POST', '/plants', { body: 'x'.repeat(100_000) }],
        ['GET', '/plants/not-a-number', {}],
        ['DELETE', '/plants/1.5', {}],
        ['GET', '/plants?limit=abc&after=&tag=', {}],
      ];
      for (const [method, path, request] of cases) {
        const anonymous = await call(method, path, request);
        expectError(anonymous, 401);
        expect(challenge(anonymous)).toBe(bare);
        const unknown = await call(method, path, { ...request, token: 'nobody' });
        expectError(unknown, 401);
        expect(challenge(unknown)).toBe(invalid);
      }
    });

    it('never logs tokens', () => {
      const logged = JSON.stringify(server.logs);
      for (const token of Object.values(TOKENS)) expect(logged).not.toContain(token);
      expect(logged).not.toContain('not-a-token');
    });
  });

  describe('GET /plants', () => {
    // Tenant b gets a private, known set of plants for listing tests.
    const ids = [MIN, '-5', '0', '3', '7', '12', '40', MAX];
    const tagOf = (index: number) => (index % 3 === 0 ? undefined : index % 3 === 1 ? 'a b&c' : 'plain');
    const plantText = (id: string, index: number) => {
      const tag = tagOf(index);
      return `{"id":${id},"name":"p${index}"${tag === undefined ? '' : `,"tag":${JSON.stringify(tag)}`}}`;
    };
    const listAs = (query: string) => call('GET', `/plants${query}`, { token: TOKENS.otherTenant });

    beforeAll(async () => {
      // Created in scrambled order: the listing must sort them.
      for (const index of [3, 0, 7, 5, 1, 6, 2, 4]) {
        const response = await create(plantText(ids[index]!, index), TOKENS.otherTenant);
        expect(response.status).toBe(200);
      }
    });

    it('lists every plant in ascending (signed) id order, digit for digit', async () => {
      const response = await listAs('');
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/json');
      expect(response.headers.get('link')).toBeNull();
      expect(response.text).toBe(`[${ids.map(plantText).join(',')}]`);
    });

    it('answers limit=0 with an empty array and no Link', async () => {
      const response = await listAs('?limit=0');
      expect(response.text).toBe('[]');
      expect(response.headers.get('link')).toBeNull();
    });

    it('follows Link headers to the end and gets exactly the full list (through the typed client)', async () => {
      const client = createPlantStoreClient({ baseUrl: server.url, token: TOKENS.otherTenant });
      const expected = ids.map((id, index) => {
        const tag = tagOf(index);
        return tag === undefined ? { id: BigInt(id), name: `p${index}` } : { id: BigInt(id), name: `p${index}`, tag };
      });
      for (const limit of [1, 3, 4, 7, 8, 9, 100]) {
        const listed: Plant[] = [];
        let pages = 1;
        let page = await client.plants.listPage({ limit });
        for (;;) {
          expect(page.plants.length).toBeLessThanOrEqual(limit);
          listed.push(...page.plants);
          if (!page.next) break;
          // A Link only when more plants remain: a page that ends the list has none.
          expect(page.plants).toHaveLength(limit);
          expect(page.next).toEqual({ limit, after: page.plants.at(-1)!.id });
          page = await client.plants.listPage(page.next);
          pages++;
        }
        expect(listed).toEqual(expected);
        expect(pages).toBe(Math.ceil(ids.length / limit));
        const streamed: Plant[] = [];
        for await (const plant of client.plants.list({ limit })) streamed.push(plant);
        expect(streamed).toEqual(expected);
      }
    });

    it('puts the exact last id and the tag filters in the Link', async () => {
      const response = await listAs('?limit=1&tag=a%20b%26c&tag=plain');
      expect(response.headers.get('link')).toBe(`</plants?limit=1&after=-5&tag=a%20b%26c&tag=plain>; rel="next"`);
      const first = await listAs('?limit=1');
      expect(first.headers.get('link')).toBe(`</plants?limit=1&after=${MIN}>; rel="next"`);
      const beforeLast = await listAs('?limit=1&after=40');
      expect(beforeLast.text).toBe(`[${plantText(MAX, 7)}]`);
      expect(beforeLast.headers.get('link')).toBeNull();
    });

    it('filters by one or several exact tags (form-encoded values)', async () => {
      const expected = (tags: (string | undefined)[]) =>
        `[${ids
          .map((id, index) => [id, index] as const)
          .filter(([, index]) => tags.includes(tagOf(index)))
          .map(([id, index]) => plantText(id, index))
          .join(',')}]`;
      expect((await listAs('?tag=plain')).text).toBe(expected(['plain']));
      expect((await listAs('?tag=a+b%26c')).text).toBe(expected(['a b&c']));
      expect((await listAs('?tag=a%20b%26c&tag=plain')).text).toBe(expected(['a b&c', 'plain']));
      expect((await listAs('?tag=none')).text).toBe('[]');
      expect((await listAs('?tag=PLAIN')).text).toBe('[]');
    });

    it('starts after the given id', async () => {
      expect((await listAs('?after=3')).json).toHaveLength(4);
      expect((await listAs(`?after=${MIN}`)).json).toHaveLength(7);
      expect((await listAs(`?after=${MAX}`)).text).toBe('[]');
      expect((await listAs('?after=-6&limit=2')).text).toBe(`[${plantText('-5', 1)},${plantText('0', 2)}]`);
    });

    it('ignores unknown query parameters', async () => {
      const response = await listAs('?limit=2&foo=bar&l%69mit=x&&=&debug');
      expect(response.status).toBe(200);
      expect(response.json).toHaveLength(2);
    });

    it.each([
      ['limit=', 'limit'],
      ['limit', 'limit'],
      ['limit=abc', 'limit'],
      ['limit=-1', 'limit'],
      ['limit=1.5', 'limit'],
      ['limit=+1', 'limit'],
      ['limit=1e3', 'limit'],
      ['limit=2147483648', 'limit'],
      ['limit=99999999999', 'limit'],
      ['limit=1&limit=2', 'limit'],
      ['after=', 'after'],
      ['after=1.5', 'after'],
      ['after=abc', 'after'],
      ['after=9223372036854775808', 'after'],
      ['after=-9223372036854775809', 'after'],
      ['after=1&after=2', 'after'],
      ['tag=', 'tag'],
      ['tag=ok&tag=', 'tag'],
      [`tag=${'x'.repeat(65)}`, 'tag'],
      ['tag=%E0%A4%A', 'tag'],
      ['limit=%', 'limit'],
      [Array.from({ length: 101 }, (_, index) => `tag=t${index}`).join('&'), 'tag'],
    ])('rejects ?%s with a 400 naming the parameter', async (query, parameter) => {
      expectError(await listAs(`?${query}`), 400, new RegExp(`\\b${parameter}`));
    });

    it('accepts the largest limit and leading zeros', async () => {
      expect((await listAs('?limit=2147483647')).json).toHaveLength(ids.length);
      expect((await listAs('?limit=002')).json).toHaveLength(2);
    });
  });
});
