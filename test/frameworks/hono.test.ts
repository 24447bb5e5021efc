import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { mount } from 'hono/mount';
import type { PlantStore } from '@plant-store/core';
import { createFetchHandler } from '@plant-store/http-node';
import { describeFrameworkHost, MAX_BODY_BYTES, type FrameworkHost } from './framework-suite.js';

async function startHonoHost(store: PlantStore): Promise<FrameworkHost> {
  const app = new Hono();
  app.get('/hello', (c) => c.text('host: hello'));
  app.get('/api/version', (c) => c.text('host: version 7'));
  // replaceRequest: false hands the handler the URL as the client sent it, mount path included, for its Link headers.
  app.all('/api/*', mount(createFetchHandler(store, { basePath: '/api', maxBodyBytes: MAX_BODY_BYTES }), { replaceRequest: false }));
  // The trap: a middleware reads the body before the API.
  app.use('/parsed-api/*', async (c, next) => {
    await c.req.json();
    await next();
  });
  // app.mount (deprecated in Hono 4, removed in 5) takes the same options.
  app.mount('/parsed-api', createFetchHandler(store, { basePath: '/parsed-api' }), { replaceRequest: false });
  app.notFound((c) => c.text(`host: no ${c.req.path}`, 404));
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const started = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(started));
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describeFrameworkHost({
  name: 'Hono (fetch handler)',
  start: startHonoHost,
  // Routes the host declares before the mount stay the host's; the handler answers every path routed to it.
  notOurs: { path: '/api/version', status: 200, body: 'host: version 7' },
  readFirstMount: '/parsed-api',
});
