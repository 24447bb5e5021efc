import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlantStore, staticTokens, type PlantStore } from '@plant-store/core';
import { createRequestListener } from '@plant-store/http-node';
import { memoryStorage } from '@plant-store/storage-memory';

// A host app mounts the API under /api in its own node:http server and keeps
// every other path for itself: the README's "Mounting the HTTP API in your
// own server" example, run for real.
describe('the request listener mounted under a base path', () => {
  let store: PlantStore;
  let server: Server;
  let url: string;
  const auth = { authorization: 'Bearer s3cret' };

  beforeAll(async () => {
    store = createPlantStore({ storage: memoryStorage(), authenticator: staticTokens([{ token: 's3cret', tenant: 'acme' }]) });
    const api = createRequestListener(store, { basePath: '/api' });
    server = createServer((req, res) =>
      api(req, res, () => {
        res.writeHead(200, { 'content-type': 'text/plain' }).end(`host page ${req.url}`);
      }),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await store.close();
  });

  it('serves the API below the base path', async () => {
    for (const id of [1, 2, 3]) {
      const created = await fetch(`${url}/api/plants`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ id, name: `plant ${id}` }),
      });
      expect(created.status).toBe(200);
    }
    const page = await fetch(`${url}/api/plants?limit=2`, { headers: auth });
    expect(await page.json()).toEqual([
      { id: 1, name: 'plant 1' },
      { id: 2, name: 'plant 2' },
    ]);
    // The Link header carries the base path, so following it stays inside the API.
    expect(page.headers.get('link')).toBe('</api/plants?limit=2&after=2>; rel="next"');
    const next = await fetch(new URL('/api/plants?limit=2&after=2', url), { headers: auth });
    expect(await next.json()).toEqual([{ id: 3, name: 'plant 3' }]);
  });

  it('hands every request outside the base path to the host', async () => {
    for (const path of ['/', '/plants', '/apiary', '/about?x=1']) {
      const response = await fetch(url + path);
      expect(response.status).toBe(200);
      expect(await response.text()).toBe(`host page ${path}`);
    }
  });

  it('answers unknown paths below the base path itself, naming its own document', async () => {
    const response = await fetch(`${url}/api/nothing`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: 404, message: 'no resource at this path (see /api/openapi.json)' });
  });

  it('describes itself with the base path as its server', async () => {
    const document = (await (await fetch(`${url}/api/openapi.json`)).json()) as { servers: { url: string }[] };
    expect(document.servers.map((server) => server.url)).toEqual(['/api']);
  });

  it('without a host fallback, answers requests outside the base path with a 404', async () => {
    const alone = createServer(createRequestListener(store, { basePath: '/api/' }));
    await new Promise<void>((resolve) => alone.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(alone.address() as AddressInfo).port}`;
      expect((await fetch(`${base}/plants`, { headers: auth })).status).toBe(404);
      expect((await fetch(`${base}/api/healthz`)).status).toBe(200);
    } finally {
      await new Promise<void>((resolve) => alone.close(() => resolve()));
    }
  });

  it('refuses a base path that is not a URL path', () => {
    expect(() => createRequestListener(store, { basePath: 'api v2' })).toThrow(RangeError);
  });
});
