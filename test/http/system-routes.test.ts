import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { version } from '@plant-store/http-node';
import { api, expectObservationsDocumented } from '../support/api-client.js';
import { STORAGE_KINDS } from '../support/storage-kind.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { TOKENS } from '../support/test-tokens.js';

expectObservationsDocumented();

describe.each(STORAGE_KINDS)('system routes and protocol details (%s storage)', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(() => server.close());

  it('answers /healthz and /readyz without credentials', async () => {
    for (const path of ['/healthz', '/readyz']) {
      const response = await api(server.url, 'GET', path);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/json');
      expect(response.text).toBe('{"status":"ok"}');
    }
  });

  it('serves a valid OpenAPI 3.1 document without credentials', async () => {
    const response = await api(server.url, 'GET', '/openapi.json');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    const document = response.json as { openapi: string; info: { version: string }; webhooks: object };
    expect(document.openapi).toBe('3.1.0');
    expect(document.info.version).toBe(version);
    expect(Object.keys(document.webhooks)).toEqual(['/plant/webhook', 'plant.deleted', 'webhook.endpoint.disabled', 'webhook.delivery.failed']);
    const result = await new Validator().validate(document as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('answers HEAD like GET without a body', async () => {
    for (const path of ['/healthz', '/readyz', '/openapi.json']) {
      const response = await fetch(server.url + path, { method: 'HEAD' });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/json');
      expect(await response.text()).toBe('');
    }
    const list = await api(server.url, 'HEAD', '/plants?limit=1', { token: TOKENS.owner });
    expect(list.status).toBe(200);
    expect(list.text).toBe('');
    const anonymous = await api(server.url, 'HEAD', '/plants/1');
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer realm="plant-store"');
  });

  it.each([
    ['/plants', ['PUT', 'PATCH', 'DELETE', 'OPTIONS'], 'GET, HEAD, POST'],
    ['/plants/1', ['POST', 'PUT', 'PATCH', 'OPTIONS'], 'GET, HEAD, DELETE'],
    ['/healthz', ['POST', 'DELETE'], 'GET, HEAD'],
    ['/readyz', ['PUT'], 'GET, HEAD'],
    ['/openapi.json', ['POST'], 'GET, HEAD'],
  ])('answers other methods on %s with 405 and Allow, before authentication', async (path, methods, allow) => {
    for (const method of methods) {
      const response = await api(server.url, method, path, { body: method === 'OPTIONS' ? undefined : '{}' });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe(allow);
      expect(response.json).toEqual({ error: 405, message: expect.stringContaining(allow) });
      expect(response.headers.get('x-request-id')).toBeTruthy();
    }
  });

  it('answers unknown paths with 404 in the error shape, before authentication', async () => {
    for (const path of ['/', '/plant', '/plants.json', '/healthz/', '/openapi.yaml', '/%', '/plants/1/2', '/%E2%82%AC']) {
      const response = await api(server.url, 'GET', path);
      expect(response.status).toBe(404);
      expect(response.headers.get('content-type')).toBe('application/json');
      expect(response.json).toEqual({ error: 404, message: expect.any(String) });
    }
  });

  it('echoes a sane x-request-id and generates one otherwise', async () => {
    const echoed = await api(server.url, 'GET', '/healthz', { headers: { 'x-request-id': 'abc-123_XYZ.~:' } });
    expect(echoed.headers.get('x-request-id')).toBe('abc-123_XYZ.~:');
    const longest = 'r'.repeat(128);
    expect((await api(server.url, 'GET', '/healthz', { headers: { 'x-request-id': longest } })).headers.get('x-request-id')).toBe(longest);
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
    for (const sent of ['r'.repeat(129), 'has space', 'tab\there', 'é']) {
      const response = await api(server.url, 'GET', '/healthz', { headers: { 'x-request-id': sent } });
      expect(response.headers.get('x-request-id')).toMatch(uuid);
    }
    const generated = await Promise.all([1, 2, 3].map(() => api(server.url, 'GET', '/plants')));
    const ids = generated.map((response) => response.headers.get('x-request-id'));
    for (const id of ids) expect(id).toMatch(uuid);
    expect(new Set(ids).size).toBe(3);
    // Errors carry it too.
    const error = await api(server.url, 'POST', '/plants', { token: TOKENS.owner, body: '{', headers: { 'x-request-id': 'err-1' } });
    expect(error.status).toBe(400);
    expect(error.headers.get('x-request-id')).toBe('err-1');
  });

  it('logs one line per request with method, path (no query), status, duration and request id', async () => {
    const before = server.logs.length;
    await api(server.url, 'GET', '/plants?limit=5&tag=secret-ish', { token: TOKENS.owner, headers: { 'x-request-id': 'log-1' } });
    await api(server.url, 'DELETE', '/plants/424242', { token: TOKENS.owner, headers: { 'x-request-id': 'log-2' } });
    const lines = server.logs.slice(before).filter((entry) => entry.message === 'request');
    expect(lines).toEqual([
      {
        level: 'info',
        message: 'request',
        fields: { method: 'GET', path: '/plants', status: 200, durationMs: expect.any(Number), requestId: 'log-1' },
      },
      {
        level: 'info',
        message: 'request',
        fields: { method: 'DELETE', path: '/plants/424242', status: 404, durationMs: expect.any(Number), requestId: 'log-2' },
      },
    ]);
    expect(JSON.stringify(server.logs)).not.toContain(TOKENS.owner);
  });

  it('answers readyz with 503 once storage is closed, and keeps serving', async () => {
    // Last test of the block: it closes this server's storage.
    await server.storage.close();
    const response = await api(server.url, 'GET', '/readyz');
    expect(response.status).toBe(503);
    expect(response.json).toEqual({ error: 503, message: 'storage unavailable' });
    // Probes repeat every few seconds; the reason is logged once, not per probe.
    for (let probe = 0; probe < 3; probe++) expect((await api(server.url, 'GET', '/readyz')).status).toBe(503);
    const warnings = server.logs.filter((entry) => entry.message === 'storage is not ready');
    expect(warnings).toEqual([
      { level: 'warn', message: 'storage is not ready', fields: { requestId: expect.any(String), error: expect.stringMatching(/storage/) } },
    ]);
    const health = await api(server.url, 'GET', '/healthz');
    expect(health.status).toBe(200);
    // Plant operations now fail as "storage unavailable" (503), without internals.
    const get = await api(server.url, 'GET', '/plants/1', { token: TOKENS.owner });
    expect(get.status).toBe(503);
    expect(get.json).toEqual({ error: 503, message: 'storage unavailable' });
    expect(server.logs.some((entry) => entry.level === 'error' && entry.message === 'request failed')).toBe(true);
  });
});
