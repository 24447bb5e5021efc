import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, expectObservationsDocumented, type ApiResponse } from '../support/api-client.js';
import { openRaw, statusOf } from '../support/raw-http.js';
import { STORAGE_KINDS } from '../support/storage-kind.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { TOKENS } from '../support/test-tokens.js';

// Property-based fuzzing of everything a client controls: bodies, paths,
// query strings, header values and raw bytes. The invariants: never a 5xx,
// every error in the error shape, no hang (each request must finish within
// the test timeout), and a healthy server afterwards.

expectObservationsDocumented();

const RUNS = { numRuns: 60 };

/** Asserts the invariants every response must meet, then returns it. */
function expectWellFormed(response: ApiResponse): ApiResponse {
  expect(response.status).toBeLessThan(500);
  expect(response.headers.get('x-request-id')).toBeTruthy();
  if (response.status >= 400) {
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.json).toEqual({ error: response.status, message: expect.any(String) });
  }
  return response;
}

const printable = (maxLength: number) => fc.stringMatching(new RegExp(`^[\\x20-\\x7e]{0,${maxLength}}$`));

/** JSON number literals, mostly near the edges of int64 and of "integer". */
const idLiteral = fc.oneof(
  fc.bigInt({ min: -(2n ** 64n), max: 2n ** 64n }).map(String),
  fc.bigInt({ min: -(2n ** 63n) - 2n, max: -(2n ** 63n) + 2n }).map(String),
  fc.bigInt({ min: 2n ** 63n - 3n, max: 2n ** 63n + 1n }).map(String),
  fc.integer().map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
  fc.tuple(fc.integer({ min: -999, max: 999 }), fc.integer({ min: -25, max: 25 })).map(([m, e]) => `${m}e${e}`),
  fc.constantFrom('20.0', '2e1', '-0', '0.0', '1e999999999', '1.5', '"5"', 'null', 'true', '[]', '{}', '-', '01', '.5', '1.', '0x10'),
);
const textLiteral = fc.oneof(
  fc.string({ maxLength: 300 }).map((text) => JSON.stringify(text)),
  fc.string({ unit: 'grapheme', maxLength: 80 }).map((text) => JSON.stringify(text)),
  fc.constantFrom('null', '1', '""', '[]', '{}', '"\\ud800"', '"\\u0000"'),
);
const asObject = (fields: Record<string, string>) =>
  `{${Object.entries(fields)
    .map(([key, value]) => `${JSON.stringify(key)}:${value}`)
    .join(',')}}`;
const fieldArbitraries = { id: idLiteral, name: textLiteral, tag: textLiteral, tags: textLiteral, ['__proto__']: textLiteral };
/** Create bodies that are mostly plausible: right and wrong keys with right and wrong values. */
const plausibleBody = fc.oneof(
  fc.record(fieldArbitraries, { requiredKeys: [] }).map(asObject),
  fc.record({ id: idLiteral, name: textLiteral, tag: textLiteral }, { requiredKeys: ['id', 'name'] }).map(asObject),
  fc
    .record({ id: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(String), name: textLiteral, tag: textLiteral }, { requiredKeys: ['id', 'name'] })
    .map(asObject),
);
const anyBody = fc.oneof(
  { arbitrary: plausibleBody, weight: 4 },
  fc.json(),
  fc.string({ maxLength: 200 }),
  fc.uint8Array({ maxLength: 200 }),
  plausibleBody.map((body) => body.slice(0, body.length - 1)),
);

describe.each(STORAGE_KINDS)('fuzzing the HTTP API (%s storage)', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind, { headersTimeoutMs: 1000 });
  });
  afterAll(async () => {
    expect((await api(server.url, 'GET', '/healthz')).status).toBe(200);
    expect((await api(server.url, 'GET', '/readyz')).status).toBe(200);
    expect(server.logs.filter((entry) => entry.level === 'error')).toEqual([]);
    await server.close();
  });

  it('answers any create body with 200, 400 or 409, and a 200 round-trips exactly', async () => {
    const created = { ok: 0, total: 0 };
    await fc.assert(
      fc.asyncProperty(anyBody, async (body) => {
        created.total++;
        const response = expectWellFormed(await api(server.url, 'POST', '/plants', { token: TOKENS.owner, body }));
        expect([200, 400, 409]).toContain(response.status);
        if (response.status === 200) {
          const id = /^\{"id":(-?\d+),"name":/.exec(response.text)?.[1];
          expect(id).toBeDefined();
          const fetched = await api(server.url, 'GET', `/plants/${id}`, { token: TOKENS.owner });
          expect(fetched.text).toBe(response.text);
          created.ok++;
        }
      }),
      // Enough runs that even an unlucky draw reaches the success path well past the floor below.
      { numRuns: 300 },
    );
    // The generators must reach the success path too, not only rejections.
    expect(created.ok).toBeGreaterThan(5);
  });

  it('answers any path and method without a 5xx', async () => {
    const path = fc.oneof(
      fc.webPath(),
      fc.webSegment().map((segment) => `/plants/${segment}`),
      fc.string({ maxLength: 40 }).map((text) => `/plants/${encodeURIComponent(text)}`),
      fc.constantFrom('/plants', '/plants/', '/healthz', '/readyz', '/openapi.json', '/plants/%', '/plants/%00', '/plants/-'),
    );
    const method = fc.constantFrom('GET', 'POST', 'DELETE', 'PUT', 'PATCH', 'HEAD', 'OPTIONS');
    await fc.assert(
      fc.asyncProperty(path, method, fc.boolean(), async (target, verb, authenticated) => {
        const response = await api(server.url, verb, target, {
          token: authenticated ? TOKENS.owner : undefined,
          body: verb === 'POST' || verb === 'PUT' || verb === 'PATCH' ? '{"id":1,"name":"fuzz"}' : undefined,
        });
        if (verb === 'HEAD') expect(response.status).toBeLessThan(500);
        else expectWellFormed(response);
      }),
      RUNS,
    );
  });

  it('answers any list query with 200 (a JSON array) or 400', async () => {
    const name = fc.oneof(fc.constantFrom('limit', 'after', 'tag'), fc.webSegment());
    const value = fc.oneof(
      fc.webSegment(),
      fc.string({ maxLength: 30 }).map(encodeURIComponent),
      fc.bigInt({ min: -(2n ** 64n), max: 2n ** 64n }).map(String),
      fc.integer({ min: -5, max: 2 ** 32 }).map(String),
      fc.constantFrom('', '%', '%zz', '+', '1.5', '-0', '00', '%E2%82', 'a%20b'),
    );
    const query = fc
      .array(fc.tuple(name, value, fc.boolean()), { maxLength: 6 })
      .map((pairs) => pairs.map(([key, text, withEquals]) => (withEquals ? `${key}=${text}` : key)).join('&'));
    await fc.assert(
      fc.asyncProperty(query, async (search) => {
        const response = expectWellFormed(await api(server.url, 'GET', `/plants?${search}`, { token: TOKENS.owner }));
        expect([200, 400]).toContain(response.status);
        if (response.status === 200) expect(Array.isArray(response.json)).toBe(true);
      }),
      RUNS,
    );
  });

  it('answers any header values sensibly', async () => {
    await fc.assert(
      fc.asyncProperty(printable(60), printable(140), printable(60), async (authorization, requestId, contentType) => {
        const headers: Record<string, string> = { authorization, 'x-request-id': requestId, 'content-type': contentType };
        const response = expectWellFormed(await api(server.url, 'POST', '/plants', { headers, body: '{"id":1,"name":"h"}' }));
        expect(response.status).toBe(401);
        // fetch trims header values; the server echoes a sane id and replaces anything else.
        const sent = requestId.trim();
        const echoed = response.headers.get('x-request-id');
        if (/^[\x21-\x7e]{1,128}$/.test(sent)) expect(echoed).toBe(sent);
        else expect(echoed).not.toBe(sent);

        const authorized = expectWellFormed(
          await api(server.url, 'POST', '/plants', {
            headers: { ...headers, authorization: `Bearer ${TOKENS.owner}` },
            body: '{"id":1,"name":"h"}',
          }),
        );
        const json = /^application\/json\s*(;|$)/i.test(contentType.trim());
        expect([200, 409, 415]).toContain(authorized.status);
        expect(authorized.status === 415).toBe(!json);
      }),
      RUNS,
    );
  });

  it('answers or closes on any raw bytes, without a 5xx', async () => {
    const requestLine = fc
      .tuple(
        fc.constantFrom('GET', 'POST', 'DELETE', 'BREW', ''),
        fc.constantFrom('/plants', '/healthz', '*', ''),
        fc.constantFrom('HTTP/1.1', 'HTTP/1.0', 'HTTP/2', ''),
      )
      .map(([method, target, version]) => `${method} ${target} ${version}\r\n`);
    const headerLines = fc
      .array(
        printable(40).map((line) => `${line}\r\n`),
        { maxLength: 5 },
      )
      .map((lines) => lines.join(''));
    const bytes = fc.oneof(
      fc.tuple(requestLine, headerLines, fc.string({ maxLength: 50 })).map(([line, headers, body]) => Buffer.from(`${line}${headers}\r\n${body}`)),
      fc.uint8Array({ maxLength: 300 }).map((array) => Buffer.from(array)),
    );
    await fc.assert(
      fc.asyncProperty(bytes, async (data) => {
        const connection = await openRaw(server.port);
        await connection.write(data);
        // Half-close: the server sees the end of the request stream and must answer or close now.
        connection.socket.end();
        const raw = await connection.closed;
        const status = statusOf(raw);
        if (status !== undefined) expect(status).toBeLessThan(500);
      }),
      { numRuns: 80 },
    );
  });
});
