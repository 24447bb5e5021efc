import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../support/api-client.js';
import { HTTP_FRONTS } from '../support/http-front.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { TOKENS } from '../support/test-tokens.js';

// A JSON body with a key twice is ambiguous (which value did the server
// take?), so every route that reads a JSON body refuses it with a 400 naming
// the key, wherever in the body the key repeats. The routes come from the
// service's own /openapi.json, so a new route with a body is covered too.

const RUNS = { numRuns: 25 };

const key = fc.stringMatching(/^[a-zA-Z][a-zA-Z0-9_]{0,11}$/);
const value = fc.jsonValue({ maxDepth: 2 }).map((json) => JSON.stringify(json));
/** `{…, "k": a, …, "k": b}` at the top level, or inside an object under `outer` (members are raw JSON texts). */
const duplicated = fc
  .record({
    dup: key,
    others: fc.dictionary(key, value, { maxKeys: 4 }),
    first: value,
    second: value,
    nested: fc.option(key, { nil: undefined }),
  })
  .filter(({ dup, others, nested }) => !(dup in others) && (nested === undefined || (nested !== dup && !(nested in others))))
  .map(({ dup, others, first, second, nested }) => {
    const members = Object.entries(others).map(([name, json]) => `${JSON.stringify(name)}:${json}`);
    const inner = `{${[`${JSON.stringify(dup)}:${first}`, ...members, `${JSON.stringify(dup)}:${second}`].join(',')}}`;
    return { dup, body: nested === undefined ? inner : `{${JSON.stringify(nested)}:${inner}}` };
  });

describe.each(HTTP_FRONTS)('a JSON body with a duplicate key (%s)', (front) => {
  let server: TestServer;
  let routes: { method: string; path: string }[];

  beforeAll(async () => {
    server = await startTestServer('sqlite', { front });
    const endpoint = await api(server.url, 'POST', '/webhooks/endpoints', {
      token: TOKENS.owner,
      body: JSON.stringify({ url: 'https://example.com/hook', eventTypes: ['plant.created'] }),
    });
    expect(endpoint.status).toBe(201);
    const id = (endpoint.json as { id: string }).id;
    const document = (await api(server.url, 'GET', '/openapi.json')).json as {
      paths: Record<string, Record<string, { requestBody?: { content: Record<string, unknown> } }>>;
    };
    routes = Object.entries(document.paths).flatMap(([template, item]) =>
      Object.entries(item)
        .filter(([, operation]) => operation?.requestBody?.content?.['application/json'] !== undefined)
        .map(([method]) => ({ method: method.toUpperCase(), path: template.replace('{id}', encodeURIComponent(id)) })),
    );
  });
  afterAll(() => server?.close());

  it('is a 400 naming the key on every route that reads a JSON body', async () => {
    // Every body-reading route of the API, not just the ones this suite knew of when written.
    expect(routes.map((route) => `${route.method} ${route.path.replace(/\/webhooks\/endpoints\/[^/]+/, '/webhooks/endpoints/{id}')}`)).toEqual(
      expect.arrayContaining(['POST /plants', 'POST /webhooks/endpoints', 'PATCH /webhooks/endpoints/{id}']),
    );
    for (const route of routes) {
      expect(route.path, 'every path parameter is filled in').not.toMatch(/[{}]/);
      await fc.assert(
        fc.asyncProperty(duplicated, async ({ dup, body }) => {
          const response = await api(server.url, route.method, route.path, { token: TOKENS.owner, body });
          expect(response.status, `${route.method} ${route.path} ${body}`).toBe(400);
          expect(response.json).toEqual({ error: 400, message: `body is not valid JSON: duplicate key "${dup}"` });
        }),
        RUNS,
      );
    }
  });
});
