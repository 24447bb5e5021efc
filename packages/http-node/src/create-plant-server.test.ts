import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createPlantStore } from '@plant-store/core';
import { memoryStorage } from '@plant-store/storage-memory';
import { createPlantServer } from './create-plant-server.js';
import { createRequestListener } from './request-listener.js';

const store = () => createPlantStore({ storage: memoryStorage() });

describe('createPlantServer', () => {
  it('applies the documented default timeouts and does not listen', () => {
    const server = createPlantServer(store());
    expect(server.listening).toBe(false);
    expect(server.headersTimeout).toBe(10_000);
    expect(server.requestTimeout).toBe(30_000);
    expect(server.keepAliveTimeout).toBe(5_000);
    expect(server.timeout).toBe(30_000);
    expect(server.listenerCount('clientError')).toBe(1);
  });

  it('applies given timeouts', () => {
    const server = createPlantServer(store(), { headersTimeoutMs: 100, requestTimeoutMs: 200, keepAliveTimeoutMs: 300 });
    expect(server.headersTimeout).toBe(100);
    expect(server.requestTimeout).toBe(200);
    expect(server.keepAliveTimeout).toBe(300);
  });

  it('never lets the headers deadline outlast the request deadline', () => {
    const server = createPlantServer(store(), { requestTimeoutMs: 2_000 });
    expect(server.headersTimeout).toBe(2_000);
    expect(server.requestTimeout).toBe(2_000);
  });

  it.each([{ headersTimeoutMs: 0 }, { requestTimeoutMs: -1 }, { keepAliveTimeoutMs: Number.NaN }, { maxBodyBytes: 1.5 }, { maxBodyBytes: -1 }])(
    'refuses %j',
    (options) => {
      expect(() => createPlantServer(store(), options)).toThrow(RangeError);
    },
  );
});

describe('createRequestListener', () => {
  it('can be mounted in any node:http server', async () => {
    const server = createServer(createRequestListener(store()));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/healthz`);
      expect(response.status).toBe(200);
      expect(await response.text()).toBe('{"status":"ok"}');
    } finally {
      server.close();
    }
  });

  it('survives a logger that throws', async () => {
    const failing = () => {
      throw new Error('log sink is gone');
    };
    const logger = { debug: failing, info: failing, warn: failing, error: failing };
    const server = createServer(createRequestListener(store(), { logger }));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      for (const path of ['/healthz', '/nowhere', '/plants']) {
        const response = await fetch(base + path);
        expect(response.status).toBeLessThan(500);
        await response.text();
      }
    } finally {
      server.close();
    }
  });

  it('shows the given version in the OpenAPI document', async () => {
    const server = createServer(createRequestListener(store(), { version: '9.9.9' }));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/openapi.json`);
      expect(((await response.json()) as { info: { version: string } }).info.version).toBe('9.9.9');
    } finally {
      server.close();
    }
  });
});
