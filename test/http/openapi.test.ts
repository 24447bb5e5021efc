import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StorageError } from '@plant-store/core';
import type { PlantRepository, Storage } from '@plant-store/core/adapter';
import { openapiDocument } from '@plant-store/http-node';
import { ROUTES } from '../../packages/http-node/src/routes/route-table.js';
import { api, observationCount, routeTemplate, undocumentedObservations } from '../support/api-client.js';
import { openapiResponseChecker } from '../support/openapi-response-check.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { TOKENS } from '../support/test-tokens.js';
import { webhookScenarios, type Scenario } from '../support/openapi-webhook-scenarios.js';

// The OpenAPI document must describe the service as it behaves: this suite
// provokes every status of every operation, checks each response (status,
// headers, body) against the served document as a strict validator does, and
// checks that the document lists no status the service never gives.

type Fault = 'none' | 'storage' | 'bug';

/** Storage whose plant operations and ping can be made to fail: a storage outage (StorageError) or a bug (anything else). */
function faultyStorage(storage: Storage, fault: { current: Fault }): Storage {
  const fail = (): void => {
    if (fault.current === 'storage') throw new StorageError('database is locked', { cause: new Error('SQLITE_BUSY') });
    if (fault.current === 'bug') throw new TypeError("Cannot read properties of undefined (reading 'id')");
  };
  const plants = storage.plants;
  const wrapped: PlantRepository = {
    create: async (...args) => (fail(), plants.create(...args)),
    get: async (...args) => (fail(), plants.get(...args)),
    list: async (...args) => (fail(), plants.list(...args)),
    idAtOffset: async (...args) => (fail(), plants.idAtOffset(...args)),
    delete: async (...args) => (fail(), plants.delete(...args)),
  };
  return {
    plants: wrapped,
    outbox: failing(storage.outbox, fail),
    endpoints: failing(storage.endpoints, fail),
    portalLinks: failing(storage.portalLinks, fail),
    ping: async () => (fail(), storage.ping()),
    close: () => storage.close(),
  };
}

/** `target` with every method made to call `fail` first (webhook routes reach storage through these). */
function failing<T extends object>(target: T, fail: () => void): T {
  return new Proxy(target, {
    get(object, key) {
      const value: unknown = Reflect.get(object, key, object);
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => (fail(), (value as (...args: unknown[]) => unknown).apply(object, args));
    },
  });
}

const owner = { token: TOKENS.owner };
const plantBody = (id: number, name = 'doc') => ({ ...owner, body: `{"id":${id},"name":"${name}"}` });

const scenarios: Scenario[] = [
  { method: 'GET', path: '/plants', request: owner, status: 200 },
  { method: 'GET', path: '/plants?limit=x', request: owner, status: 400 },
  { method: 'GET', path: '/plants', status: 401 },
  { method: 'GET', path: '/plants', request: { token: TOKENS.writer }, status: 403 },
  { method: 'GET', path: '/plants', request: owner, fault: 'bug', status: 500 },
  { method: 'GET', path: '/plants', request: owner, fault: 'storage', status: 503 },

  { method: 'POST', path: '/plants', request: plantBody(1), status: 200 },
  { method: 'POST', path: '/plants', request: { ...owner, body: '{"id":1}' }, status: 400 },
  { method: 'POST', path: '/plants', request: { body: '{}' }, status: 401 },
  { method: 'POST', path: '/plants', request: { token: TOKENS.reader, body: '{}' }, status: 403 },
  { method: 'POST', path: '/plants', request: plantBody(1, 'other'), status: 409 },
  { method: 'POST', path: '/plants', request: { ...owner, body: 'x'.repeat(70_000) }, status: 413 },
  { method: 'POST', path: '/plants', request: { ...owner, body: '{}', headers: { 'content-type': 'text/json' } }, status: 415 },
  { method: 'POST', path: '/plants', request: plantBody(2), fault: 'bug', status: 500 },
  { method: 'POST', path: '/plants', request: plantBody(2), fault: 'storage', status: 503 },

  { method: 'GET', path: '/plants/1', request: owner, status: 200 },
  { method: 'GET', path: '/plants/one', request: owner, status: 400 },
  { method: 'GET', path: '/plants/1', status: 401 },
  { method: 'GET', path: '/plants/1', request: { token: TOKENS.writer }, status: 403 },
  { method: 'GET', path: '/plants/404', request: owner, status: 404 },
  { method: 'GET', path: '/plants/1', request: owner, fault: 'bug', status: 500 },
  { method: 'GET', path: '/plants/1', request: owner, fault: 'storage', status: 503 },

  { method: 'DELETE', path: '/plants/1', request: { token: TOKENS.reader }, status: 403 },
  { method: 'DELETE', path: '/plants/1', request: owner, status: 204 },
  { method: 'DELETE', path: '/plants/1.0', request: owner, status: 400 },
  { method: 'DELETE', path: '/plants/1', status: 401 },
  { method: 'DELETE', path: '/plants/1', request: owner, status: 404 },
  { method: 'DELETE', path: '/plants/1', request: owner, fault: 'bug', status: 500 },
  { method: 'DELETE', path: '/plants/1', request: owner, fault: 'storage', status: 503 },

  { method: 'GET', path: '/openapi.json', status: 200 },
  { method: 'GET', path: '/healthz', status: 200 },
  { method: 'GET', path: '/readyz', status: 200 },
  { method: 'GET', path: '/readyz', fault: 'storage', status: 503 },
  ...webhookScenarios,
  ...refusedScenarios(openapiDocument('test').paths),
];

/** For every operation, headers larger than node:http accepts: the `4XX` any request may get before its operation runs. */
function refusedScenarios(paths: Record<string, Record<string, unknown>>): Scenario[] {
  const oversized = { headers: { 'x-padding': 'x'.repeat(20_000) } };
  return Object.entries(paths).flatMap(([route, item]) =>
    Object.keys(item)
      .filter((key) => key !== 'parameters')
      .map((method) => ({ method: method.toUpperCase(), path: route.replace('{id}', '1'), request: oversized, status: 431 })),
  );
}

/** The document's response key a status is checked against: its own, else its range. */
const documentedStatus = (responses: Record<string, unknown>, status: number) => (String(status) in responses ? String(status) : `${String(status)[0]}XX`);

describe('the OpenAPI document', () => {
  const document = openapiDocument('1.2.3');
  const fault = { current: 'none' as Fault };
  let server: TestServer;
  let problems: ReturnType<typeof openapiResponseChecker>;
  beforeAll(async () => {
    // Keeps one parked message per endpoint, so that a second one drops the first and the endpoint shows parkedDropped.
    server = await startTestServer('memory', { parkedLimit: 1, wrapStorage: (storage) => faultyStorage(storage, fault) });
    problems = openapiResponseChecker((await api(server.url, 'GET', '/openapi.json')).json as Record<string, unknown>);
  });
  afterAll(() => server.close());

  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(structuredClone(document) as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(document.info.version).toBe('1.2.3');
  });

  it('documents the webhook with its body and Standard Webhooks headers', () => {
    const webhook = document.webhooks['/plant/webhook']?.post as {
      parameters: { name: string; in: string; required: boolean }[];
      requestBody: { content: Record<string, { schema: unknown }> };
    };
    expect(webhook.parameters.filter((parameter) => parameter.in === 'header' && parameter.required).map((parameter) => parameter.name)).toEqual(
      expect.arrayContaining(['webhook-id', 'webhook-timestamp', 'webhook-signature']),
    );
    expect(webhook.requestBody.content['application/json']?.schema).toEqual({ $ref: '#/components/schemas/NewPlant' });
  });

  it('describes ids as int64 JSON integers and bodies as closed objects', () => {
    const schemas = document.components.schemas as Record<string, { type?: string; format?: string; additionalProperties?: boolean }>;
    expect(schemas.PlantId).toMatchObject({ type: 'integer', format: 'int64' });
    expect(schemas.NewPlant?.additionalProperties).toBe(false);
    expect(schemas.Error?.additionalProperties).toBe(false);
  });

  const label = (scenario: Scenario) => (typeof scenario.path === 'string' ? scenario.path : scenario.path.toString().replace(/^\(\) => /, ''));
  it.each(
    scenarios.map(
      (scenario) => [`${scenario.method} ${label(scenario)}${scenario.fault && scenario.fault !== 'none' ? ` (${scenario.fault})` : ''}`, scenario] as const,
    ),
  )('%s answers as documented', async (_, scenario) => {
    fault.current = scenario.fault ?? 'none';
    try {
      const path = typeof scenario.path === 'string' ? scenario.path : scenario.path();
      const response = await api(server.url, scenario.method, path, scenario.request);
      expect(response.status, response.text).toBe(scenario.status);
      expect(problems(scenario.method, routeTemplate(path)!, response)).toEqual([]);
      scenario.after?.(response);
      if (response.status === 500) {
        // A bug never leaks: generic message, detail in the log only.
        expect(response.json).toEqual({ error: 500, message: 'internal server error' });
        expect(server.logs.at(-2)?.fields?.error).toMatch(/TypeError: Cannot read properties/);
      }
    } finally {
      fault.current = 'none';
    }
  });

  it.each(ROUTES.filter(({ template }) => template in document.paths).map(({ template, allow }) => [template, allow] as const))(
    'PUT %s: 405 with Allow, in the error shape',
    async (template, allow) => {
      const response = await api(server.url, 'PUT', template.replace('{id}', '1'), owner);
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe(allow);
      expect(response.headers.get('x-request-id')).toBeTruthy();
      expect(response.json).toEqual({ error: 405, message: expect.stringContaining('PUT') });
    },
  );

  it('lists every status the service gave, and gives every status it lists', () => {
    const operations = document.paths as Record<string, Record<string, { responses: Record<string, unknown> }>>;
    const observed = new Set(
      scenarios.map((scenario) => {
        const route = routeTemplate(typeof scenario.path === 'string' ? scenario.path : scenario.path())!;
        const responses = operations[route]?.[scenario.method.toLowerCase()]?.responses ?? {};
        return `${scenario.method} ${route} ${documentedStatus(responses, scenario.status)}`;
      }),
    );
    expect(observationCount()).toBeGreaterThanOrEqual(observed.size - 2);
    expect(undocumentedObservations()).toEqual([]);
    const documented: string[] = [];
    for (const [route, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        if (method === 'parameters') continue;
        for (const status of Object.keys((operation as { responses: object }).responses)) {
          documented.push(`${method.toUpperCase()} ${route} ${status}`);
        }
      }
    }
    expect(documented.filter((entry) => !observed.has(entry))).toEqual([]);
  });
});

describe('the OpenAPI document with every optional part on', () => {
  let server: TestServer;
  let served: Record<string, unknown>;
  let problems: ReturnType<typeof openapiResponseChecker>;
  beforeAll(async () => {
    server = await startTestServer('memory', { docs: true, metrics: true });
    served = (await api(server.url, 'GET', '/openapi.json')).json as Record<string, unknown>;
    problems = openapiResponseChecker(served);
  });
  afterAll(() => server.close());

  it("is clean under the recommended rules of Redocly's linter", async () => {
    const folder = mkdtempSync(join(tmpdir(), 'plant-store-lint-'));
    try {
      writeFileSync(join(folder, 'openapi.json'), JSON.stringify(served));
      const cli = createRequire(import.meta.url).resolve('@redocly/cli/bin/cli.js');
      // Telemetry and the update check off: the linter runs offline.
      const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };
      const { stdout } = await promisify(execFile)(process.execPath, [cli, 'lint', '--extends=recommended', '--format=json', 'openapi.json'], {
        cwd: folder,
        env,
      });
      const report = JSON.parse(stdout) as { totals: { errors: number; warnings: number }; problems: { ruleId: string; message: string }[] };
      expect(report.problems.map(({ ruleId, message }) => `${ruleId}: ${message}`)).toEqual([]);
      expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('answers /docs and /metrics as documented, 304 and 431 included', async () => {
    const page = await fetch(`${server.url}/docs`);
    const responses = [
      { route: '/docs', response: page },
      { route: '/docs', response: await fetch(`${server.url}/docs`, { headers: { 'if-none-match': page.headers.get('etag')! } }) },
    ];
    responses.push({ route: '/metrics', response: await fetch(`${server.url}/metrics`) });
    const oversized = { headers: { 'x-padding': 'x'.repeat(20_000) } };
    for (const route of ['/docs', '/metrics']) responses.push({ route, response: await fetch(server.url + route, oversized) });
    expect(responses.map(({ response }) => response.status)).toEqual([200, 304, 200, 431, 431]);
    for (const { route, response } of responses) {
      expect(problems('GET', route, { status: response.status, headers: response.headers, text: await response.text() })).toEqual([]);
    }
  });
});
