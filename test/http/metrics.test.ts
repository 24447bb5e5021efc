import { randomBytes } from 'node:crypto';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPlantStore, staticTokens, StorageError, type PlantStore, type PlantStoreWebhookOptions } from '@plant-store/core';
import { createPlantServer, createRequestListener, type PlantServerOptions } from '@plant-store/http-node';
import { webhookHttpTransport } from '@plant-store/http-node/webhook-transport';
import { startServe } from '../support/cli-process.js';
import { startReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import { openStorage } from '../support/webhook-test-service.js';
import { parseExposition, valueOf, type Exposition } from '../support/prometheus-text.js';
import { STORAGE_KINDS, type StorageKind } from '../support/storage-kind.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { TOKENS } from '../support/test-tokens.js';

// GET /metrics over real HTTP: what it counts moves with real requests and
// real webhook attempts, the backlog is read from real storage, and nothing
// a client or tenant controls ever becomes a label.

const REQUESTS = 'plant_store_http_requests_total';
const DURATION = 'plant_store_http_request_duration_seconds';
const ATTEMPTS = 'plant_store_webhook_attempts_total';
const PENDING = 'plant_store_webhook_deliveries_pending';
const OLDEST = 'plant_store_webhook_oldest_pending_age_seconds';
const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

async function scrape(base: string, path = '/metrics'): Promise<{ text: string; exposition: Exposition }> {
  const response = await fetch(base + path);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
  const text = await response.text();
  return { text, exposition: parseExposition(text) };
}

/** `method route status → value` of every sample of `name` (counters) or `name_count` (histograms). */
function bySeries(exposition: Exposition, name: string): Map<string, number> {
  const series = new Map<string, number>();
  for (const sample of exposition.samples) {
    if (sample.name !== name) continue;
    series.set(`${sample.labels['method']} ${sample.labels['route']} ${sample.labels['status']}`, sample.value);
  }
  return series;
}

/** What changed between two scrapes, zero changes left out. */
function delta(before: Map<string, number>, after: Map<string, number>): Record<string, number> {
  const changed: Record<string, number> = {};
  for (const [key, value] of after) if (value !== (before.get(key) ?? 0)) changed[key] = value - (before.get(key) ?? 0);
  return changed;
}

/** Polls the metrics until `done` holds (webhook attempts happen in the background). */
async function scrapeUntil(base: string, done: (exposition: Exposition) => boolean, what: string): Promise<Exposition> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const { exposition } = await scrape(base);
    if (done(exposition)) return exposition;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A request with any method and an unnormalized path (fetch rewrites both); resolves with the status. */
function rawStatus(port: number, method: string, path: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

describe.each(STORAGE_KINDS)('GET /metrics (%s)', (kind: StorageKind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind, {
      metrics: true,
      wrapStorage: (storage) => ({
        ...storage,
        ping: () => storage.ping(),
        close: () => storage.close(),
        outbox: new Proxy(storage.outbox, {
          get: (target, property) =>
            property === 'pendingStats' && failBacklog ? () => Promise.reject(new StorageError('storage is down (test)')) : bound(target, property),
        }),
      }),
    });
  });
  afterAll(() => server.close());
  let failBacklog = false;

  it('counts real requests by method, route template and status, each timed in the histogram', async () => {
    const owner = { authorization: `Bearer ${TOKENS.owner}` };
    const json = { ...owner, 'content-type': 'application/json' };
    const calls: [method: string, path: string, route: string, init?: RequestInit][] = [
      ['POST', '/plants', '/plants', { headers: json, body: '{"id":1,"name":"Fern"}' }],
      ['POST', '/plants', '/plants', { headers: json, body: '{"id":2,"name":"Ivy"}' }],
      ['POST', '/plants', '/plants', { headers: json, body: '{"id":"x"}' }],
      ['GET', '/plants', '/plants', { headers: owner }],
      ['GET', '/plants?limit=1', '/plants', { headers: owner }],
      ['GET', '/plants', '/plants'],
      ['PUT', '/plants', '/plants', { headers: owner }],
      ['GET', '/plants/1', '/plants/{id}', { headers: owner }],
      ['HEAD', '/plants/1', '/plants/{id}', { headers: owner }],
      ['GET', '/plants/999', '/plants/{id}', { headers: owner }],
      ['GET', '/plants/abc', '/plants/{id}', { headers: owner }],
      ['DELETE', '/plants/2', '/plants/{id}', { headers: owner }],
      ['GET', '/healthz', '/healthz'],
      ['GET', '/readyz', '/readyz'],
      ['GET', '/openapi.json', '/openapi.json'],
      ['GET', '/nowhere', 'unmatched'],
      ['GET', '/webhooks/endpoints/ep_path-marker', '/webhooks/endpoints/{id}', { headers: owner }],
      ['POST', '/webhooks/deliveries/msg_path-marker/resend', '/webhooks/deliveries/{id}/resend', { headers: owner }],
    ];
    const before = (await scrape(server.url)).exposition;
    const expected: Record<string, number> = {};
    for (const [method, path, route, init] of calls) {
      const response = await fetch(server.url + path, { method, ...init });
      await response.arrayBuffer();
      const key = `${method} ${route} ${response.status}`;
      expected[key] = (expected[key] ?? 0) + 1;
    }
    // The first scrape is counted once it is answered.
    expected['GET /metrics 200'] = 1;
    const after = (await scrape(server.url)).exposition;
    expect(delta(bySeries(before, REQUESTS), bySeries(after, REQUESTS))).toEqual(expected);
    expect(delta(bySeries(before, `${DURATION}_count`), bySeries(after, `${DURATION}_count`))).toEqual(expected);
    // The statuses themselves are the documented ones (spot checks).
    expect(expected).toMatchObject({ 'POST /plants 200': 2, 'POST /plants 400': 1, 'GET /plants 401': 1, 'PUT /plants 405': 1, 'GET unmatched 404': 1 });
    const sum = valueOf(after, `${DURATION}_sum`, { method: 'POST', route: '/plants', status: '200' })!;
    expect(sum).toBeGreaterThan(0);
  });

  it('never puts a tenant, token, id, URL, query or unknown path in a label', async () => {
    const markers = ['8675309', 'path-marker', 'query-marker', 'evil.example', 'quote', TOKENS.owner, TOKENS.otherTenant];
    const owner = { authorization: `Bearer ${TOKENS.owner}` };
    await fetch(`${server.url}/plants`, { method: 'POST', headers: { ...owner, 'content-type': 'application/json' }, body: '{"id":8675309,"name":"x"}' });
    const odd = [
      ['GET', '/plants/8675309?tenant=query-marker'],
      ['DELETE', '/plants/86753090'],
      ['GET', '/path-marker/deeper'],
      ['GET', '/plants/quote%22%7D%20x'],
      ['GET', '//plants'],
      ['GET', '/plants/'],
      ['GET', '/plants/8675309/extra'],
      ['GET', '/metrics/path-marker'],
      ['GET', '/http://evil.example/x'],
      ['PROPFIND', '/plants'],
      ['MKCOL', '/path-marker'],
      ['GET', '/webhooks/endpoints/ep_id-marker'],
      ['GET', '/plants?after=8675309&limit=query-marker'],
    ];
    for (const [method, path] of odd) await rawStatus(server.port, method!, path!, owner);
    await rawStatus(server.port, 'GET', '/plants', { authorization: `Bearer ${TOKENS.otherTenant}` });
    const { text, exposition } = await scrape(server.url);
    for (const marker of markers) expect(text, marker).not.toContain(marker);
    const routes = new Set([
      '/plants',
      '/plants/{id}',
      '/healthz',
      '/readyz',
      '/openapi.json',
      '/metrics',
      'unmatched',
      '/webhooks/endpoints/{id}',
      '/webhooks/deliveries/{id}/resend',
    ]);
    const allowed: Record<string, (value: string) => boolean> = {
      method: (value) => ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'OTHER'].includes(value),
      route: (value) => routes.has(value),
      status: (value) => /^[1-5]\d\d$/.test(value),
      outcome: (value) => ['delivered', 'retry', 'gone', 'failed'].includes(value),
      le: (value) => !Number.isNaN(Number(value.replace('Inf', 'Infinity'))),
      endpoints: (value) => ['all', 'responsive', 'slow'].includes(value),
    };
    const ours = exposition.samples.filter((sample) => sample.name.startsWith('plant_store_'));
    expect(ours.length).toBeGreaterThan(0);
    for (const sample of ours) {
      for (const [label, value] of Object.entries(sample.labels)) {
        expect(allowed[label]?.(value), `${sample.name} ${label}=${value}`).toBe(true);
      }
    }
    expect(valueOf(exposition, REQUESTS, { method: 'OTHER', route: '/plants' })).toBe(1);
    expect(valueOf(exposition, REQUESTS, { method: 'GET', route: 'unmatched', status: '404' })).toBeGreaterThanOrEqual(5);
  });

  it('serves every family with HELP and TYPE, process metrics included; HEAD has no body; other methods get 405', async () => {
    const { exposition } = await scrape(server.url);
    const families = new Set(exposition.samples.map((sample) => sample.name.replace(/_(bucket|sum|count)$/, '')));
    for (const family of families) {
      const named = exposition.types.has(family) ? family : `${family}_count`;
      expect(exposition.types.has(named), family).toBe(true);
      expect(exposition.helps.get(named), family).toBeTruthy();
    }
    expect(exposition.types.get(REQUESTS)).toBe('counter');
    expect(exposition.types.get(DURATION)).toBe('histogram');
    expect(exposition.types.get(ATTEMPTS)).toBe('counter');
    expect(exposition.types.get(PENDING)).toBe('gauge');
    for (const name of ['process_cpu_seconds_total', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_seconds', 'nodejs_heap_size_used_bytes']) {
      expect(valueOf(exposition, name), name).toBeGreaterThanOrEqual(0);
    }
    // Every outcome exists from the start, at 0 when nothing was attempted (no subscriptions here).
    for (const outcome of ['delivered', 'retry', 'gone', 'failed']) expect(valueOf(exposition, ATTEMPTS, { outcome })).toBe(0);
    expect(valueOf(exposition, PENDING)).toBe(0);
    expect(valueOf(exposition, OLDEST)).toBe(0);
    expect(valueOf(exposition, 'plant_store_storage_up')).toBe(1);

    const head = await fetch(`${server.url}/metrics`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(await head.text()).toBe('');
    const post = await fetch(`${server.url}/metrics`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    expect(await post.json()).toMatchObject({ error: 405 });
  });

  it('still answers 200 when storage fails: the backlog is left out and storage_up is 0', async () => {
    failBacklog = true;
    try {
      const { exposition } = await scrape(server.url);
      expect(valueOf(exposition, 'plant_store_storage_up')).toBe(0);
      expect(valueOf(exposition, PENDING)).toBeUndefined();
      expect(valueOf(exposition, OLDEST)).toBeUndefined();
      expect(valueOf(exposition, REQUESTS, { method: 'GET', route: '/metrics', status: '200' })).toBeGreaterThan(0);
    } finally {
      failBacklog = false;
    }
    const { exposition } = await scrape(server.url);
    expect(valueOf(exposition, 'plant_store_storage_up')).toBe(1);
    expect(valueOf(exposition, PENDING)).toBe(0);
  });
});

describe.each(STORAGE_KINDS)('webhook metrics (%s)', (kind: StorageKind) => {
  let receiver: WebhookReceiver;
  const running: { store: PlantStore; server: Server }[] = [];
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterEach(async () => {
    for (const { store, server } of running.splice(0)) {
      await closeServer(server);
      await store.close();
    }
  });
  afterAll(() => receiver.close());

  async function service(webhooks: PlantStoreWebhookOptions): Promise<{ store: PlantStore; base: string }> {
    const store = createPlantStore({
      storage: await openStorage(kind),
      authenticator: staticTokens([{ token: 't-acme', tenant: 'acme' }]),
      webhooks: { transport: webhookHttpTransport(), timeoutMs: 1_000, jitter: 0, ...webhooks },
    });
    const server = createPlantServer(store, { metrics: true });
    running.push({ store, server });
    return { store, base: await listen(server) };
  }

  const create = (base: string, id: number) =>
    fetch(`${base}/plants`, {
      method: 'POST',
      headers: { authorization: 'Bearer t-acme', 'content-type': 'application/json' },
      body: JSON.stringify({ id, name: `plant ${id}` }),
    }).then((response) => response.status);

  it('counts attempts by outcome against a real receiver, each timed', async () => {
    receiver.reply((request) => ({ status: request.path === '/ok' ? 204 : request.path === '/gone' ? 410 : 500 }));
    const { base } = await service({
      retrySchedule: [20, 40],
      subscriptions: ['/ok', '/gone', '/flaky'].map((path) => ({ url: receiver.url(path), secret: newSecret() })),
    });
    expect(await create(base, 1)).toBe(200);
    const total = (exposition: Exposition) =>
      ['delivered', 'retry', 'gone', 'failed'].reduce((sum, outcome) => sum + (valueOf(exposition, ATTEMPTS, { outcome }) ?? 0), 0);
    // /ok: delivered; /gone: 410; /flaky: 500, retried twice (the schedule), then failed.
    const exposition = await scrapeUntil(base, (e) => total(e) >= 5, 'five attempts');
    const expected = { delivered: 1, retry: 2, gone: 1, failed: 1 };
    for (const [outcome, count] of Object.entries(expected)) {
      expect(valueOf(exposition, ATTEMPTS, { outcome }), outcome).toBe(count);
      expect(valueOf(exposition, 'plant_store_webhook_attempt_duration_seconds_count', { outcome }), outcome).toBe(count);
    }
    expect(receiver.received.length).toBeGreaterThanOrEqual(5);
  });

  it('shows the pending backlog and the age of its oldest delivery while the receiver is down', async () => {
    const down = await startReceiver();
    const url = down.url('/down');
    await down.close(); // connections to it are refused from now on
    const { store, base } = await service({ retrySchedule: [3_600_000], subscriptions: [{ url, secret: newSecret() }] });
    for (const id of [1, 2, 3]) expect(await create(base, id)).toBe(200);
    await scrapeUntil(base, (e) => valueOf(e, ATTEMPTS, { outcome: 'retry' }) === 3, 'three failed first attempts');
    const oldest = Math.min(...(await store.allTenants.webhooks.list()).map((delivery) => delivery.createdAt));
    const lowest = (Date.now() - oldest) / 1000;
    const { exposition } = await scrape(base);
    const highest = (Date.now() - oldest) / 1000;
    expect(valueOf(exposition, PENDING)).toBe(3);
    const age = valueOf(exposition, OLDEST)!;
    expect(age).toBeGreaterThanOrEqual(lowest);
    expect(age).toBeLessThanOrEqual(highest);
    expect(valueOf(exposition, ATTEMPTS, { outcome: 'delivered' })).toBe(0);
  });
});

describe('metrics on and off', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  async function serverWith(options: PlantServerOptions): Promise<TestServer> {
    const server = await startTestServer('memory', options);
    cleanups.push(() => server.close());
    return server;
  }

  it('are off by default for an embedder: GET /metrics is a 404 and the OpenAPI document does not list it', async () => {
    const server = await serverWith({});
    const response = await fetch(`${server.url}/metrics`);
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: 404 });
    const document = (await (await fetch(`${server.url}/openapi.json`)).json()) as { paths: Record<string, unknown> };
    expect(document.paths['/metrics']).toBeUndefined();
  });

  it('when on, the OpenAPI document lists /metrics without authentication, and stays valid', async () => {
    const server = await serverWith({ metrics: true });
    const document = (await (await fetch(`${server.url}/openapi.json`)).json()) as {
      paths: Record<string, { get: { security: unknown[]; responses: Record<string, { content: Record<string, unknown> }> } }>;
    };
    expect(document.paths['/metrics']?.get.security).toEqual([]);
    expect(Object.keys(document.paths['/metrics']!.get.responses['200']!.content)).toEqual(['text/plain; version=0.0.4']);
    const result = await new Validator().validate(document as never);
    expect(result.errors ?? []).toEqual([]);
  });

  it("keeps two listeners in one process apart, and never touches prom-client's global registry", async () => {
    const first = await serverWith({ metrics: true });
    const second = await serverWith({ metrics: true });
    for (let i = 0; i < 3; i++) await (await fetch(`${first.url}/healthz`)).arrayBuffer();
    const one = (await scrape(first.url)).exposition;
    const two = (await scrape(second.url)).exposition;
    expect(valueOf(one, REQUESTS, { route: '/healthz' })).toBe(3);
    expect(valueOf(two, REQUESTS, { route: '/healthz' })).toBeUndefined();
    const promClient = createRequire(new URL('../../packages/http-node/package.json', import.meta.url))('prom-client') as {
      register: { getMetricsAsArray(): unknown[] };
    };
    expect(promClient.register.getMetricsAsArray()).toEqual([]);
  });

  it('labels a request with the route the router matched: the docs page and its files as /docs when on, unmatched when off', async () => {
    const withDocs = await serverWith({ metrics: true, docs: true });
    const withoutDocs = await serverWith({ metrics: true });
    for (const server of [withDocs, withoutDocs]) {
      for (const path of ['/docs', '/docs/swagger-ui.css']) await (await fetch(server.url + path)).arrayBuffer();
    }
    const on = (await scrape(withDocs.url)).exposition;
    expect(valueOf(on, REQUESTS, { method: 'GET', route: '/docs', status: '200' })).toBe(2);
    expect(valueOf(on, REQUESTS, { route: 'unmatched' })).toBeUndefined();
    const off = (await scrape(withoutDocs.url)).exposition;
    expect(valueOf(off, REQUESTS, { method: 'GET', route: 'unmatched', status: '404' })).toBe(2);
    expect(valueOf(off, REQUESTS, { route: '/docs' })).toBeUndefined();
  });

  it('under a base path: served at <base>/metrics, routes labelled relative to it, requests outside it unmatched', async () => {
    const store = createPlantStore({ storage: (await import('@plant-store/storage-memory')).memoryStorage() });
    const server = createServer(createRequestListener(store, { basePath: '/api', metrics: true }));
    const base = await listen(server);
    cleanups.push(async () => {
      await closeServer(server);
      await store.close();
    });
    await (await fetch(`${base}/api/healthz`)).arrayBuffer();
    expect((await fetch(`${base}/metrics`)).status).toBe(404);
    const { exposition } = await scrape(base, '/api/metrics');
    expect(valueOf(exposition, REQUESTS, { route: '/healthz', status: '200' })).toBe(1);
    expect(valueOf(exposition, REQUESTS, { route: 'unmatched', status: '404' })).toBe(1);
  });
});

describe('plant-store serve', () => {
  it('serves /metrics by default, and not with PLANT_STORE_METRICS=off', async () => {
    const env = { PLANT_STORE_TOKENS: 'cli-token=acme' };
    const on = await startServe(['--port=0', '--storage=memory'], { env });
    try {
      const { exposition } = await scrape(on.url);
      expect(valueOf(exposition, 'process_cpu_seconds_total')).toBeGreaterThan(0);
      expect(valueOf(exposition, PENDING)).toBe(0);
    } finally {
      await on.stop();
    }
    const off = await startServe(['--port=0', '--storage=memory'], { env: { ...env, PLANT_STORE_METRICS: 'off' } });
    try {
      expect((await fetch(`${off.url}/metrics`)).status).toBe(404);
      const document = (await (await fetch(`${off.url}/openapi.json`)).json()) as { paths: Record<string, unknown> };
      expect(document.paths['/metrics']).toBeUndefined();
    } finally {
      await off.stop();
    }
  });
});

describe('the exposition parser used here', () => {
  it.each([
    'plant_store_x{route="/a"} one',
    'plant_store_x{route="/a} 1',
    'plant_store_x{route=/a} 1',
    'plant_store_x{1route="a"} 1',
    'plant store 1',
    '# TYPE x bogus',
    'x 1\n# TYPE x counter',
    'x{a="1"} 1\nx{a="1"} 2',
    '# TYPE h histogram\nh_bucket{le="1"} 2\nh_bucket{le="+Inf"} 1\nh_count 1',
    '# TYPE h histogram\nh_bucket{le="1"} 1\nh_count 1',
  ])('rejects %j', (text) => {
    expect(() => parseExposition(text)).toThrow();
  });

  it('accepts the format with escapes, special values and timestamps', () => {
    const parsed = parseExposition('# HELP x a \\\\ help\n# TYPE x gauge\nx{a="q\\"u\\\\o\\nte",b="2",} -Inf 1700000000000\ny NaN\nz 1.5e-3\n');
    expect(parsed.samples.map((sample) => [sample.name, sample.labels, sample.value])).toEqual([
      ['x', { a: 'q"u\\o\nte', b: '2' }, -Infinity],
      ['y', {}, Number.NaN],
      ['z', {}, 0.0015],
    ]);
  });
});

/** A member of `target` as a proxy should hand it out: methods bound to it, anything else (an absent optional member) as it is. */
function bound(target: object, property: string | symbol): unknown {
  const value: unknown = Reflect.get(target, property);
  return typeof value === 'function' ? value.bind(target) : value;
}
