import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlantStore } from '@plant-store/core';
import { memoryStorage } from '@plant-store/storage-memory';
import { createRequestListener, type RequestListenerOptions } from '../request-listener.js';
import type { PortalAssets } from './portal-files.js';

// The portal's files as the listener serves them, over real HTTP: which
// paths answer, with which headers, and that nothing else is reachable.

const PAGE = '<!doctype html><title>portal</title><script type="module" src="portal/app-ABC123.js"></script>';
const SCRIPT = `console.log(${JSON.stringify('x'.repeat(2000))});`;
const ASSETS: PortalAssets = new Map([
  ['index.html', { contentType: 'text/html; charset=utf-8', body: Buffer.from(PAGE) }],
  ['app-ABC123.js', { contentType: 'text/javascript; charset=utf-8', body: new TextEncoder().encode(SCRIPT), immutable: true }],
]);

interface Got {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

/** node:http, which leaves content-encoding alone (fetch would decode it) and sends the path as given (`..` included). */
function send(url: string, method = 'GET', headers: Record<string, string> = {}): Promise<Got> {
  // Split by hand: the URL parser would resolve the `..`.
  const [, hostname, port, path] = /^http:\/\/([^:/]+):(\d+)(\/.*)$/.exec(url)!;
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, path, method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

async function listen(options: RequestListenerOptions): Promise<{ url: string; server: Server }> {
  const listener = createRequestListener(createPlantStore({ storage: memoryStorage() }), options);
  const server = createServer((req, res) => listener(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('the portal route', () => {
  let root: { url: string; server: Server };
  let mounted: { url: string; server: Server };
  let off: { url: string; server: Server };
  beforeAll(async () => {
    root = await listen({ portal: ASSETS });
    mounted = await listen({ portal: ASSETS, basePath: '/api' });
    off = await listen({});
  });
  afterAll(() => {
    for (const { server } of [root, mounted, off]) server.close();
  });

  it('serves the page at /portal with the strict policy, revalidated on every load', async () => {
    const page = await send(`${root.url}/portal`);
    expect(page.status).toBe(200);
    expect(page.body.toString()).toBe(PAGE);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['cache-control']).toBe('no-cache');
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(page.headers['content-security-policy']).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
  });

  it('serves a file the page links to at /portal/<name>, cached for good, gzip when accepted, 304 when unchanged', async () => {
    const plain = await send(`${root.url}/portal/app-ABC123.js`);
    expect(plain.status).toBe(200);
    expect(plain.body.toString()).toBe(SCRIPT);
    expect(plain.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(plain.headers['content-security-policy']).toContain("default-src 'none'");

    const zipped = await send(`${root.url}/portal/app-ABC123.js`, 'GET', { 'accept-encoding': 'gzip' });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(zipped.body).toString()).toBe(SCRIPT);

    const again = await send(`${root.url}/portal/app-ABC123.js`, 'GET', { 'if-none-match': String(plain.headers.etag) });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
  });

  it('answers HEAD like GET without a body', async () => {
    const head = await send(`${root.url}/portal`, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers['content-length']).toBe(String(Buffer.byteLength(PAGE)));
    expect(head.body.length).toBe(0);
  });

  it.each(['POST', 'PUT', 'DELETE', 'PATCH'])('refuses %s with a 405 naming GET and HEAD', async (method) => {
    const refused = await send(`${root.url}/portal`, method);
    expect(refused.status).toBe(405);
    expect(refused.headers.allow).toBe('GET, HEAD');
    expect(JSON.parse(refused.body.toString())).toEqual({ error: 405, message: `method ${method} is not allowed here; allowed: GET, HEAD` });
  });

  it.each(['/portal/', '/portal/index.html', '/portal/missing.js', '/portal/../portal', '/portal/app-ABC123.js/x', '/portalx', '/Portal'])(
    '%s is a 404',
    async (path) => {
      const missing = await send(`${root.url}${path}`);
      expect(missing.status).toBe(404);
      expect(JSON.parse(missing.body.toString())).toMatchObject({ error: 404 });
    },
  );

  it('lives under the base path, and not outside it', async () => {
    expect((await send(`${mounted.url}/api/portal`)).status).toBe(200);
    expect((await send(`${mounted.url}/api/portal/app-ABC123.js`)).status).toBe(200);
    expect((await send(`${mounted.url}/portal`)).status).toBe(404);
  });

  it('does not exist without the option', async () => {
    expect((await send(`${off.url}/portal`)).status).toBe(404);
    expect((await send(`${off.url}/portal/app-ABC123.js`)).status).toBe(404);
  });

  it('is counted under the one route the router matched, /portal, for the page and its files', async () => {
    const counted = await listen({ portal: ASSETS, metrics: true });
    try {
      for (const path of ['/portal', '/portal/app-ABC123.js']) expect((await send(`${counted.url}${path}`)).status).toBe(200);
      const exposition = (await send(`${counted.url}/metrics`)).body.toString();
      const portalLines = exposition.split('\n').filter((line) => line.startsWith('plant_store_http_requests_total{') && line.includes('route="/portal"'));
      expect(portalLines).toEqual([expect.stringMatching(/method="GET".*status="200"\} 2$/)]);
      expect(exposition).not.toContain('route="unmatched"');
    } finally {
      counted.server.close();
    }
  });

  it("answers every request with an x-request-id, the client's when it sent one", async () => {
    const answers = await Promise.all([
      send(`${root.url}/portal`, 'GET', { 'x-request-id': 'portal-1' }),
      send(`${root.url}/portal/app-ABC123.js`),
      send(`${root.url}/portal`, 'POST'),
      send(`${root.url}/portal/missing.js`),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 405, 404]);
    expect(answers[0]!.headers['x-request-id']).toBe('portal-1');
    for (const answer of answers) expect(answer.headers['x-request-id']).toMatch(/./);
  });

  it('refuses assets without the page, and names that are not plain file names', () => {
    const store = createPlantStore({ storage: memoryStorage() });
    const script = ASSETS.get('app-ABC123.js')!;
    expect(() => createRequestListener(store, { portal: new Map([['app.js', script]]) })).toThrow(/index\.html/);
    for (const name of ['../secret.js', 'a/b.js', '.hidden', '']) {
      expect(() => createRequestListener(store, { portal: new Map([...ASSETS, [name, script]]) })).toThrow(/plain file names/);
    }
  });
});
