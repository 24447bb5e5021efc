import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlantStoreClient, NotFoundError, type Plant } from '@plant-store/client';
import type { PlantStore } from '@plant-store/core';
import { startReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import { TOKENS } from '../support/test-tokens.js';
import { startFrameworkStore } from './framework-store.js';

/** The largest body the hosts' plant APIs accept, small so an oversized one is cheap to send. */
export const MAX_BODY_BYTES = 1024;

export interface FrameworkHost {
  /** `http://127.0.0.1:<port>`; the API is mounted at `/api`, and `GET /hello` is the host's own page (`host: hello`). */
  readonly url: string;
  close(): Promise<void>;
}

export interface FrameworkCase {
  readonly name: string;
  /** Mounts the API (with `maxBodyBytes: MAX_BODY_BYTES`) the way the framework's docs recipe does. */
  start(store: PlantStore): Promise<FrameworkHost>;
  /** A path below `/api` that is not the API's, and what the host answers there. */
  readonly notOurs: { readonly path: string; readonly status: number; readonly body: string };
  /** A mount path where a host middleware read the body before the API (where the framework lets that happen). */
  readonly readFirstMount?: string;
}

const auth = { authorization: `Bearer ${TOKENS.owner}` };

/** The same scenarios for every framework: a real server on loopback, driven through the typed client. */
export function describeFrameworkHost(framework: FrameworkCase): void {
  describe(`the API mounted in ${framework.name}`, () => {
    let host: FrameworkHost;
    let store: { store: PlantStore; close(): Promise<void> };
    let receiver: WebhookReceiver;
    const client = () => createPlantStoreClient({ baseUrl: `${host.url}/api`, token: TOKENS.owner });

    beforeAll(async () => {
      store = await startFrameworkStore();
      receiver = await startReceiver();
      host = await framework.start(store.store);
    });
    afterAll(async () => {
      await host?.close();
      await store?.close();
      await receiver?.close();
    });

    it('creates, gets and deletes a plant under the mount path', async () => {
      const plants = client().plants;
      expect(await plants.create({ id: 1, name: 'Fern' })).toEqual({ id: 1n, name: 'Fern' });
      expect(await plants.get(1)).toEqual({ id: 1n, name: 'Fern' });
      await plants.delete(1);
      await expect(plants.get(1)).rejects.toBeInstanceOf(NotFoundError);
    });

    it('pages by Link headers that carry the mount path', async () => {
      const plants = client().plants;
      for (const id of [10, 11, 12]) await plants.create({ id, name: `plant ${id}` });
      const first = await fetch(`${host.url}/api/plants?limit=2&after=9`, { headers: auth });
      expect(first.status).toBe(200);
      expect(first.headers.get('link')).toBe('</api/plants?limit=2&after=11>; rel="next"');
      // The Link resolves against the request URL, as a browser or any HTTP client would resolve it.
      const next = await fetch(new URL(/<([^>]*)>/.exec(first.headers.get('link')!)![1]!, first.url), { headers: auth });
      expect(await next.json()).toEqual([{ id: 12, name: 'plant 12' }]);
      const listed: Plant[] = [];
      for await (const plant of plants.list({ after: 9, limit: 1 })) listed.push(plant);
      expect(listed.map((plant) => plant.id)).toEqual([10n, 11n, 12n]);
      const document = (await (await fetch(`${host.url}/api/openapi.json`)).json()) as { servers: { url: string }[] };
      expect(document.servers.map((server) => server.url)).toEqual(['/api']);
    });

    it('leaves the host its own paths, inside the mount path too', async () => {
      const hello = await fetch(`${host.url}/hello`);
      expect(await hello.text()).toBe('host: hello');
      const response = await fetch(`${host.url}${framework.notOurs.path}`, { headers: auth });
      expect(response.status).toBe(framework.notOurs.status);
      expect(await response.text()).toBe(framework.notOurs.body);
    });

    it('answers an unsupported method on its own path with its 405', async () => {
      const response = await fetch(`${host.url}/api/plants/1`, { method: 'PUT', headers: auth });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('GET, HEAD, DELETE');
    });

    it('refuses an oversized body with a 413 in its error shape', async () => {
      const response = await fetch(`${host.url}/api/plants`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ id: 2, name: 'x'.repeat(MAX_BODY_BYTES) }),
      });
      expect(response.status).toBe(413);
      expect(await response.json()).toEqual({ error: 413, message: `body must not exceed ${MAX_BODY_BYTES} bytes` });
    });

    it('keeps ids exact beyond 2^53', async () => {
      const response = await fetch(`${host.url}/api/plants`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: '{"id":9007199254740993,"name":"Big"}',
      });
      expect(await response.text()).toBe('{"id":9007199254740993,"name":"Big"}');
      expect(await client().plants.get(9007199254740993n)).toEqual({ id: 9007199254740993n, name: 'Big' });
    });

    if (framework.readFirstMount !== undefined) {
      const mount = framework.readFirstMount;
      it('tells the developer to mount the API before body parsers when one read the body first', async () => {
        const response = await fetch(`${host.url}${mount}/plants`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: '{"id":3,"name":"Parsed"}',
        });
        expect(response.status).toBe(500);
        const body = (await response.json()) as { error: number; message: string };
        expect(body.error).toBe(500);
        expect(body.message).toContain('mount the plant API before body parsers');
      });
    }

    it("delivers a created plant's webhook to a real receiver", async () => {
      const api = client();
      await api.webhooks.endpoints.create({ url: receiver.url('/hook') });
      await api.plants.create({ id: 20, name: 'Hooked' });
      const [delivery] = await receiver.waitFor(1, { path: '/hook' });
      expect(JSON.parse(delivery!.body)).toEqual({ id: 20, name: 'Hooked' });
      expect(delivery!.headers['webhook-signature']).toMatch(/^v1,/);
    });
  });
}
