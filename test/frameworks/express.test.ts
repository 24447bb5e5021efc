import type { AddressInfo } from 'node:net';
import type { IncomingMessage } from 'node:http';
import express5 from 'express';
import express4 from 'express4';
import { describe, expect, it } from 'vitest';
import type { PlantStore } from '@plant-store/core';
import type { LogFields, Logger } from '@plant-store/core/adapter';
import { createRequestListener } from '@plant-store/http-node';
import { TOKENS } from '../support/test-tokens.js';
import { describeFrameworkHost, MAX_BODY_BYTES, type FrameworkHost } from './framework-suite.js';
import { startFrameworkStore } from './framework-store.js';

const auth = { authorization: `Bearer ${TOKENS.owner}` };

/** The docs recipe: the listener is Express middleware; body parsers of the host come after it, or on other paths. */
async function startExpressHost(express: typeof express5, store: PlantStore): Promise<FrameworkHost> {
  const app = express();
  const plantApi = createRequestListener(store, { maxBodyBytes: MAX_BODY_BYTES });
  app.get('/hello', (_req, res) => {
    res.type('text/plain').send('host: hello');
  });
  app.use('/api', plantApi);
  app.get('/api/version', (_req, res) => {
    res.type('text/plain').send('host: version 7');
  });
  // The trap: a parser in front of the API reads the body first.
  app.use('/parsed-api', express.json(), plantApi);
  // A parser that keeps the raw bytes: the API parses those itself.
  app.use(
    '/raw-api',
    express.json({
      verify: (req: IncomingMessage & { rawBody?: Buffer }, _res, buffer) => {
        req.rawBody = buffer;
      },
    }),
    plantApi,
  );
  app.use('/buffer-api', express.raw({ type: 'application/json' }), plantApi);
  app.use((req, res) => {
    res.status(404).type('text/plain').send(`host: no ${req.originalUrl}`);
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

for (const [name, express] of [
  ['Express 5', express5],
  ['Express 4', express4],
] as const) {
  describeFrameworkHost({
    name,
    start: (store) => startExpressHost(express, store),
    notOurs: { path: '/api/version', status: 200, body: 'host: version 7' },
    readFirstMount: '/parsed-api',
  });

  describe(`${name}: details of mounting`, () => {
    it('hands unknown paths below the mount to the host, and serves the same API under every mount', async () => {
      const { store, close } = await startFrameworkStore();
      const host = await startExpressHost(express, store);
      try {
        const unknown = await fetch(`${host.url}/api/nothing`, { headers: auth });
        expect(unknown.status).toBe(404);
        expect(await unknown.text()).toBe('host: no /api/nothing');
        for (const [mount, id] of [
          ['/raw-api', '9007199254740995'],
          ['/buffer-api', '9007199254740997'],
        ] as const) {
          const created = await fetch(`${host.url}${mount}/plants`, {
            method: 'POST',
            headers: { ...auth, 'content-type': 'application/json' },
            body: `{"id":${id},"name":"kept"}`,
          });
          expect(created.status).toBe(200);
          expect(await created.text()).toBe(`{"id":${id},"name":"kept"}`);
        }
        const page = await fetch(`${host.url}/raw-api/plants?limit=1`, { headers: auth });
        expect(page.headers.get('link')).toBe('</raw-api/plants?limit=1&after=9007199254740995>; rel="next"');
        const missing = await fetch(`${host.url}/buffer-api/plants/x/y`, { headers: auth });
        expect(await missing.text()).toBe('host: no /buffer-api/plants/x/y');
      } finally {
        await host.close();
        await close();
      }
    });

    it('logs the 500 for a body a parser read first as a server error', async () => {
      const { store, close } = await startFrameworkStore();
      const errors: { message: string; fields?: LogFields }[] = [];
      const logger: Logger = { debug: () => {}, info: () => {}, warn: () => {}, error: (message, fields) => void errors.push({ message, fields }) };
      const app = express();
      app.use('/api', express.json(), createRequestListener(store, { logger }));
      const server = app.listen(0, '127.0.0.1');
      await new Promise<void>((resolve) => server.once('listening', resolve));
      try {
        const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api/plants`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: '{"id":1,"name":"p"}',
        });
        expect(response.status).toBe(500);
        expect(errors).toEqual([
          { message: 'request failed', fields: expect.objectContaining({ status: 500, error: expect.stringContaining('already read by another middleware') }) },
        ]);
      } finally {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
        await close();
      }
    });

    it('takes a basePath equal to the mount path as that mount, and a deeper one below it', async () => {
      const { store, close } = await startFrameworkStore();
      const app = express();
      app.use('/v1', createRequestListener(store, { basePath: '/v1' }));
      app.use('/outer', createRequestListener(store, { basePath: '/inner' }));
      const server = app.listen(0, '127.0.0.1');
      await new Promise<void>((resolve) => server.once('listening', resolve));
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      try {
        for (const id of [1, 2]) {
          await fetch(`${url}/v1/plants`, {
            method: 'POST',
            headers: { ...auth, 'content-type': 'application/json' },
            body: JSON.stringify({ id, name: 'p' }),
          });
        }
        expect((await fetch(`${url}/v1/plants?limit=1`, { headers: auth })).headers.get('link')).toBe('</v1/plants?limit=1&after=1>; rel="next"');
        expect((await fetch(`${url}/outer/inner/plants?limit=1`, { headers: auth })).headers.get('link')).toBe(
          '</outer/inner/plants?limit=1&after=1>; rel="next"',
        );
        const document = (await (await fetch(`${url}/outer/inner/openapi.json`)).json()) as { servers: { url: string }[] };
        expect(document.servers.map((server) => server.url)).toEqual(['/outer/inner']);
        expect((await fetch(`${url}/outer/plants`, { headers: auth })).status).toBe(404);
      } finally {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
        await close();
      }
    });

    it('serves a mount with parameters under each of its paths, past the mounts it keeps built', async () => {
      const { store, close } = await startFrameworkStore();
      const app = express();
      app.use('/t/:tenant', createRequestListener(store));
      const server = app.listen(0, '127.0.0.1');
      await new Promise<void>((resolve) => server.once('listening', resolve));
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      try {
        // Every one a mount path of its own: more than the listener keeps.
        for (let tenant = 0; tenant < 70; tenant += 1) expect((await fetch(`${url}/t/${tenant}/nothing`)).status).toBe(404);
        for (const tenant of [1, 69]) {
          const document = (await (await fetch(`${url}/t/${tenant}/openapi.json`)).json()) as { servers: { url: string }[] };
          expect(document.servers.map((server) => server.url)).toEqual([`/t/${tenant}`]);
        }
      } finally {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
        await close();
      }
    });
  });
}
