import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { fastifyServerOptions, plantStorePlugin } from '@plant-store/http-node/fastify';
import { bodyOf, headerOf, openRaw, statusOf } from '../support/raw-http.js';
import { TOKENS } from '../support/test-tokens.js';
import { describeFrameworkHost, MAX_BODY_BYTES, type FrameworkHost } from './framework-suite.js';
import { startFrameworkStore } from './framework-store.js';
import type { PlantStore } from '@plant-store/core';

async function startFastifyHost(store: PlantStore, requestTimeoutMs?: number): Promise<FrameworkHost & { routes: string; port: number }> {
  // The service's timeouts and its error shape for what node:http refuses: server options, not the plugin's.
  const app = Fastify({ ...fastifyServerOptions({ requestTimeoutMs }) });
  app.get('/hello', async (_request, reply) => reply.type('text/plain').send('host: hello'));
  // The host's own JSON route keeps Fastify's parser: the plugin sets it aside only inside itself.
  app.post('/echo', async (request) => request.body);
  app.setNotFoundHandler((request, reply) => {
    void reply.code(404).type('text/plain').send(`host: no ${request.url}`);
  });
  await app.register(plantStorePlugin, { store, prefix: '/api', maxBodyBytes: MAX_BODY_BYTES });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, port, routes: app.printRoutes(), close: () => app.close() };
}

describeFrameworkHost({
  name: 'Fastify 5',
  start: (store) => startFastifyHost(store),
  notOurs: { path: '/api/nothing', status: 404, body: 'host: no /api/nothing' },
});

describe('Fastify 5: details of the plugin', () => {
  it("lists the API's routes in Fastify's routing and keeps the host's own parsers", async () => {
    const { store, close } = await startFrameworkStore();
    const host = await startFastifyHost(store);
    try {
      expect(host.routes).toMatch(/api\/\n?[\s\S]*plants/);
      expect(host.routes).toContain(':id');
      const echo = await fetch(`${host.url}/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
      expect(await echo.json()).toEqual({ a: 1 });
      // Fastify's parsers would refuse these before the API saw them; the API answers in its own shape.
      const noType = await fetch(`${host.url}/api/plants`, { method: 'POST', headers: { authorization: `Bearer ${TOKENS.owner}` }, body: '{}' });
      expect(noType.status).toBe(415);
      expect(await noType.json()).toEqual({ error: 415, message: 'content-type must be application/json' });
      const duplicate = await fetch(`${host.url}/api/plants`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKENS.owner}`, 'content-type': 'application/json' },
        body: '{"id":1,"name":"a","name":"b"}',
      });
      expect(duplicate.status).toBe(400);
      expect(((await duplicate.json()) as { message: string }).message).toContain('name');
    } finally {
      await host.close();
      await close();
    }
  });

  it('answers a stalled upload with a 408 in the error shape, with the timeouts of the server options', async () => {
    const { store, close } = await startFrameworkStore();
    const host = await startFastifyHost(store, 500);
    try {
      const stalled = await openRaw(host.port);
      await stalled.write(
        `POST /api/plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKENS.owner}\r\nX-Request-Id: stalled-upload\r\n` +
          'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"id":2,"n',
      );
      const raw = await stalled.closed;
      expect(statusOf(raw)).toBe(408);
      expect(headerOf(raw, 'x-request-id')).toBe('stalled-upload');
      expect(JSON.parse(bodyOf(raw))).toEqual({ error: 408, message: 'the request body did not arrive in time' });
    } finally {
      await host.close();
      await close();
    }
  });
});
