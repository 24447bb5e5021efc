import { readFileSync } from 'node:fs';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlantStore, staticTokens, type PlantStore } from '@plant-store/core';
import { createRequestListener, openapiDocument } from '@plant-store/http-node';
import { memoryStorage } from '@plant-store/storage-memory';
import { bodyOf, headerOf, rawRequest, statusOf } from '../support/raw-http.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

// The API reference page over plain HTTP: what it serves, with which headers,
// and that nothing else can be reached through it. test/browser runs it.
const swaggerUiFolder = dirname(createRequire(join(import.meta.dirname, '../../packages/http-node/package.json')).resolve('swagger-ui-dist/package.json'));

interface Got {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

/** A request through node:http, which (unlike fetch) leaves content-encoding alone. */
function get(url: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Got> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** The `src` and `href` attributes of an HTML page. */
function references(html: string): string[] {
  return [...html.matchAll(/\s(?:src|href)="([^"]*)"/g)].map((match) => match[1]!);
}

describe('GET /docs', () => {
  let server: TestServer;
  let page: Got;
  beforeAll(async () => {
    server = await startTestServer('memory', { docs: true });
    page = await get(`${server.url}/docs`);
  });
  afterAll(() => server.close());

  it('is an HTML page that needs no credentials, with a strict Content-Security-Policy', () => {
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['x-request-id']).toMatch(/./);
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    const policy = String(page.headers['content-security-policy'])
      .split(';')
      .map((directive) => directive.trim());
    expect(policy).toEqual(expect.arrayContaining(["default-src 'none'", "script-src 'self'", "style-src 'self'", "connect-src 'self'"]));
    expect(page.body.toString()).toContain('<div id="swagger-ui"></div>');
  });

  it('refers only to files of the service, by relative URLs, and has no inline script', async () => {
    const html = page.body.toString();
    expect(html).not.toMatch(/https?:|\/\//);
    expect(html).not.toMatch(/<script>|<script(?![^>]*\ssrc=)[^>]*>/);
    const refs = references(html);
    expect(refs).toEqual(expect.arrayContaining(['docs/swagger-ui.css', 'docs/swagger-ui-bundle.js', 'docs/docs-init.js', 'openapi.json']));
    for (const ref of refs) expect(ref).toMatch(/^[a-z]/);
    const init = (await get(`${server.url}/docs/docs-init.js`)).body.toString();
    // Comments aside (`// …`), no URL with a scheme and no protocol-relative one.
    expect(init).not.toMatch(/[a-z]:\/\/|['"`]\/\//i);
    // The online validator is off; the document is the service's own, relative to the page.
    expect(init).toContain('validatorUrl: null');
    expect(init).toContain("new URL('openapi.json', document.baseURI)");
  });

  it.each([
    ['/docs/swagger-ui-bundle.js', 'text/javascript; charset=utf-8', 'swagger-ui-bundle.js'],
    ['/docs/swagger-ui.css', 'text/css; charset=utf-8', 'swagger-ui.css'],
    ['/docs/favicon-32x32.png', 'image/png', 'favicon-32x32.png'],
    ['/docs/favicon-16x16.png', 'image/png', 'favicon-16x16.png'],
  ])('serves %s as %s, byte for byte the swagger-ui-dist file', async (path, type, file) => {
    const response = await get(server.url + path);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe(type);
    expect(response.headers['content-encoding']).toBeUndefined();
    expect(response.headers['cache-control']).toBe('public, max-age=86400');
    expect(response.body.equals(readFileSync(join(swaggerUiFolder, file)))).toBe(true);
    expect(Number(response.headers['content-length'])).toBe(response.body.length);
  });

  it('serves text files gzipped to clients that accept gzip, with their own ETag', async () => {
    const plain = await get(`${server.url}/docs/swagger-ui-bundle.js`);
    for (const accept of ['gzip', 'br, gzip;q=0.5', '*', 'deflate, *;q=0.1']) {
      const zipped = await get(`${server.url}/docs/swagger-ui-bundle.js`, { 'accept-encoding': accept });
      expect(zipped.headers['content-encoding']).toBe('gzip');
      expect(zipped.headers.vary).toBe('accept-encoding');
      expect(zipped.body.length).toBeLessThan(plain.body.length);
      expect(gunzipSync(zipped.body).equals(plain.body)).toBe(true);
      expect(zipped.headers.etag).not.toBe(plain.headers.etag);
    }
    for (const accept of ['identity', 'gzip;q=0', 'br', '*;q=0', 'gzip;q=0, *']) {
      const response = await get(`${server.url}/docs/swagger-ui-bundle.js`, { 'accept-encoding': accept });
      expect(response.headers['content-encoding'], accept).toBeUndefined();
    }
    // PNG is already compressed: always sent as is.
    const icon = await get(`${server.url}/docs/favicon-32x32.png`, { 'accept-encoding': 'gzip' });
    expect(icon.headers['content-encoding']).toBeUndefined();
  });

  it('answers a matching If-None-Match with 304 and no body', async () => {
    for (const path of ['/docs', '/docs/swagger-ui.css']) {
      const first = await get(server.url + path);
      const etag = first.headers.etag!;
      expect(etag).toMatch(/^"[^"]+"$/);
      for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
        const again = await get(server.url + path, { 'if-none-match': ifNoneMatch });
        expect(again.status).toBe(304);
        expect(again.body.length).toBe(0);
        expect(again.headers.etag).toBe(etag);
      }
      expect((await get(server.url + path, { 'if-none-match': '"other"' })).status).toBe(200);
    }
    expect(page.headers['cache-control']).toBe('no-cache');
  });

  it('answers HEAD with the headers of GET and no body', async () => {
    for (const path of ['/docs', '/docs/swagger-ui-bundle.js']) {
      const full = await get(server.url + path);
      const head = await get(server.url + path, {}, 'HEAD');
      expect(head.status).toBe(200);
      expect(head.body.length).toBe(0);
      expect(head.headers['content-length']).toBe(full.headers['content-length']);
      expect(head.headers.etag).toBe(full.headers.etag);
    }
  });

  it('answers other methods with 405 and Allow', async () => {
    for (const [method, path] of [
      ['POST', '/docs'],
      ['DELETE', '/docs/swagger-ui.css'],
      ['PUT', '/docs/docs-init.js'],
    ] as const) {
      const response = await fetch(server.url + path, { method });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('GET, HEAD');
    }
  });

  it.each([
    '/docs/',
    '/docs/index.html',
    '/docs/swagger-initializer.js',
    '/docs/swagger-ui-bundle.js.map',
    '/docs/package.json',
    '/docs/SWAGGER-UI.CSS',
    '/docs/swagger-ui.css/',
    '/docs/__proto__',
    '/docs/constructor',
    '/docsx',
  ])('has no file at %s (404 in the error shape)', async (path) => {
    const response = await fetch(server.url + path);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: 404, message: 'no resource at this path (see /openapi.json)' });
  });

  // Sent raw: fetch would resolve the dot segments before sending.
  it.each([
    '/docs/../package.json',
    '/docs/../../../../etc/passwd',
    '/docs/%2e%2e/package.json',
    '/docs/..%2fpackage.json',
    '/docs/%2e%2e%2f%2e%2e%2fpackage.json',
    '/docs/swagger-ui.css/../../package.json',
    '/docs/..\\package.json',
    '/docs/%2fetc%2fpasswd',
    '/docs//etc/passwd',
    '/docs/swagger-ui.css%00.png',
  ])('refuses the traversal attempt %s with a 404', async (path) => {
    const raw = await rawRequest(server.port, `GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    expect(statusOf(raw)).toBe(404);
    expect(headerOf(raw, 'content-type')).toBe('application/json');
    expect(JSON.parse(bodyOf(raw))).toMatchObject({ error: 404 });
  });

  it('is listed in the OpenAPI document as a public text/html operation, and the document stays valid', async () => {
    const document = (await (await fetch(`${server.url}/openapi.json`)).json()) as ReturnType<typeof openapiDocument>;
    const operation = document.paths['/docs']?.get as { security: unknown[]; responses: Record<string, { content?: object }> };
    expect(operation.security).toEqual([]);
    expect(Object.keys(operation.responses['200']!.content!)).toEqual(['text/html']);
    const result = await new Validator().validate(document as never);
    expect(result.errors ?? []).toEqual([]);
  });
});

describe('GET /docs when the page is off (the listener default)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('memory');
  });
  afterAll(() => server.close());

  it('answers 404 for the page and its files, and leaves it out of the OpenAPI document', async () => {
    for (const path of ['/docs', '/docs/swagger-ui.css', '/docs/docs-init.js']) {
      expect((await fetch(server.url + path)).status).toBe(404);
      expect((await fetch(server.url + path, { method: 'POST' })).status).toBe(404);
    }
    const document = (await (await fetch(`${server.url}/openapi.json`)).json()) as ReturnType<typeof openapiDocument>;
    expect(Object.keys(document.paths)).not.toContain('/docs');
    expect(Object.keys(openapiDocument('1.0.0').paths)).not.toContain('/docs');
    expect(Object.keys(openapiDocument('1.0.0', { docs: true }).paths)).toContain('/docs');
  });
});

describe('GET /docs under a base path', () => {
  let store: PlantStore;
  let host: Server;
  let url: string;
  beforeAll(async () => {
    store = createPlantStore({ storage: memoryStorage(), authenticator: staticTokens([{ token: 't', tenant: 'x' }]) });
    const api = createRequestListener(store, { basePath: '/api', docs: true });
    host = createServer((req, res) => api(req, res, () => res.writeHead(418).end(`host ${req.url}`)));
    await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(host.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => host.close(() => resolve()));
    await store.close();
  });

  it('serves the page there, and every file it refers to resolves below the base path', async () => {
    const pageUrl = `${url}/api/docs`;
    const response = await get(pageUrl);
    expect(response.status).toBe(200);
    for (const ref of references(response.body.toString())) {
      const resolved = new URL(ref, pageUrl);
      expect(resolved.pathname.startsWith('/api/')).toBe(true);
      expect((await get(resolved.href)).status, resolved.pathname).toBe(200);
    }
    const document = (await (await fetch(`${url}/api/openapi.json`)).json()) as ReturnType<typeof openapiDocument>;
    expect(document.paths['/docs']).toBeDefined();
  });

  it('leaves /docs outside the base path to the host', async () => {
    const response = await fetch(`${url}/docs`);
    expect(response.status).toBe(418);
    expect(await response.text()).toBe('host /docs');
  });
});
