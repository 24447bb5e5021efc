import { setTimeout as sleep } from 'node:timers/promises';
import { execFile } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { StorageError, type Plant } from '@plant-store/core';
import { plantToJson, type Storage } from '@plant-store/core/adapter';
import { api, expectObservationsDocumented } from '../support/api-client.js';
import { rawRequest, statusOf } from '../support/raw-http.js';
import { STORAGE_KINDS } from '../support/storage-kind.js';
import { HTTP_FRONTS } from '../support/http-front.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { TOKENS } from '../support/test-tokens.js';

expectObservationsDocumented();

const plant = (index: number): Plant =>
  index % 2 === 0 ? { id: BigInt(index * 3 - 50_000), name: `plant ${index}` } : { id: BigInt(index * 3 - 50_000), name: `plant ${index}`, tag: 'odd' };

/** Inserts plants straight through the storage port (no HTTP, no events). */
async function seed(storage: Storage, tenant: string, count: number): Promise<void> {
  const writes: Promise<unknown>[] = [];
  for (let index = 0; index < count; index++) writes.push(storage.plants.create(tenant, plant(index), []));
  await Promise.all(writes);
}

/** Counts `plants.list` calls, can make the n-th one fail, and can run a hook on each call (inside the server). */
function spyOnList(failOnCall?: number) {
  const spy = {
    calls: 0,
    onCall: undefined as ((call: number) => void) | undefined,
    wrap(storage: Storage): Storage {
      const plants = storage.plants;
      return {
        ...storage,
        ping: () => storage.ping(),
        close: () => storage.close(),
        outbox: storage.outbox,
        plants: {
          create: (...args) => plants.create(...args),
          get: (...args) => plants.get(...args),
          delete: (...args) => plants.delete(...args),
          idAtOffset: (...args) => plants.idAtOffset(...args),
          list: async (...args) => {
            spy.calls++;
            spy.onCall?.(spy.calls);
            if (spy.calls === failOnCall) throw new StorageError('disk on fire', { cause: new Error('SQLITE_IOERR at /secret/path') });
            return plants.list(...args);
          },
        },
      };
    },
  };
  return spy;
}

describe.each(STORAGE_KINDS)('streamed listing of 100,000 plants (%s storage)', (kind) => {
  const COUNT = 100_000;
  let server: TestServer;
  let expectedList = '';
  const spy = spyOnList();
  beforeAll(async () => {
    server = await startTestServer(kind, { wrapStorage: (storage) => spy.wrap(storage) });
    await seed(server.storage, 'a', COUNT);
    expectedList = `[${Array.from({ length: COUNT }, (_, index) => plantToJson(plant(index))).join(',')}]`;
  }, 60_000);
  afterAll(() => server.close());

  it('streams every plant in order while other requests are answered', async () => {
    const events: string[] = [];
    const list = fetch(`${server.url}/plants`, { headers: { authorization: `Bearer ${TOKENS.owner}`, 'x-request-id': 'big-list' } });
    // Sent right behind the list request, so they reach the server while it
    // streams: each needs a few event-loop turns, the list ~200 batches.
    // Raw sockets keep client-side overhead out of the picture.
    const others = Promise.all([
      rawRequest(server.port, 'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n').then((raw) => events.push(`healthz ${statusOf(raw)}`)),
      rawRequest(server.port, `GET /plants/${plant(123).id} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKENS.owner}\r\nConnection: close\r\n\r\n`).then(
        (raw) => events.push(`get ${statusOf(raw)}`),
      ),
    ]);
    const response = await list;
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('transfer-encoding')).toBe('chunked');
    expect(response.headers.get('content-length')).toBeNull();
    const text = await response.text();
    events.push('list end');
    await others;
    expect(events.indexOf('list end')).toBe(2);
    expect(events.slice(0, 2).sort()).toEqual(['get 200', 'healthz 200']);
    // The server finished them before it finished the list, too.
    const finished = server.logs.filter((entry) => entry.message === 'request').map((entry) => entry.fields?.requestId);
    expect(finished.indexOf('big-list')).toBe(finished.length - 1);

    // One comparison of the raw text: exact digits, order, and no plant missing or doubled.
    expect(text.length).toBe(expectedList.length);
    expect(text === expectedList).toBe(true);
  });

  it('keeps answering other requests while a fast client in another process reads the whole list', async () => {
    // A client in its own process drains the socket as fast as the server
    // writes: every write completes at once and 'drain' arrives on
    // process.nextTick. Only a real event-loop turn per batch lets the
    // requests below (sent from inside the server's third storage read, so
    // they arrive mid-stream) be answered before the list ends.
    const firstLog = server.logs.length;
    const firstCall = spy.calls;
    let others: Promise<unknown> | undefined;
    spy.onCall = (call) => {
      if (call !== firstCall + 3) return;
      others = Promise.all([
        rawRequest(server.port, 'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'),
        rawRequest(server.port, `GET /plants/${plant(123).id} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKENS.owner}\r\nConnection: close\r\n\r\n`),
      ]);
    };
    const reader = `
      require('node:http').get(process.argv[1], { headers: { authorization: process.argv[2], 'x-request-id': 'fast-list' } }, (res) => {
        let bytes = 0;
        res.on('data', (chunk) => { bytes += chunk.length; });
        res.on('end', () => process.stdout.write(res.statusCode + ' ' + bytes));
      });`;
    const received = await new Promise<string>((resolve, reject) => {
      execFile(process.execPath, ['-e', reader, `${server.url}/plants`, `Bearer ${TOKENS.owner}`], (error, stdout) =>
        error ? reject(error) : resolve(stdout),
      );
    }).finally(() => {
      spy.onCall = undefined;
    });
    expect(received).toBe(`200 ${expectedList.length}`);
    await others;
    const finished = server.logs
      .slice(firstLog)
      .filter((entry) => entry.message === 'request')
      .map((entry) => (entry.fields?.requestId === 'fast-list' ? 'list' : String(entry.fields?.path)));
    expect(finished).toEqual([expect.any(String), expect.any(String), 'list']);
    expect(finished.slice(0, 2).sort()).toEqual(['/healthz', `/plants/${plant(123).id}`]);
  });

  it('pages through the same plants with a large limit (Link across storage batches)', async () => {
    let next: string | undefined = '/plants?limit=30000&tag=odd';
    let total = 0;
    let pages = 0;
    let last = -Infinity;
    while (next) {
      const response = await api(server.url, 'GET', next, { token: TOKENS.owner });
      expect(response.status).toBe(200);
      const page = response.json as { id: number; tag: string }[];
      for (const item of page) {
        expect(item.id).toBeGreaterThan(last);
        expect(item.tag).toBe('odd');
        last = item.id;
      }
      total += page.length;
      pages++;
      const link = response.headers.get('link');
      next = link ? /^<([^>]+)>/.exec(link)![1] : undefined;
    }
    expect(total).toBe(COUNT / 2);
    expect(pages).toBe(2);
  });
});

describe.each(HTTP_FRONTS)('streaming edge cases (%s)', (front) => {
  it('sends a small list in one piece with a content-length', async () => {
    const server = await startTestServer('memory', { front });
    try {
      await seed(server.storage, 'a', 3);
      const response = await fetch(`${server.url}/plants`, { headers: { authorization: `Bearer ${TOKENS.owner}` } });
      expect(response.headers.get('content-length')).toBe(String((await response.clone().text()).length));
      expect(response.headers.get('transfer-encoding')).toBeNull();
      expect(await response.json()).toHaveLength(3);
    } finally {
      await server.close();
    }
  });

  it('stops reading storage when the client disconnects mid-stream', async () => {
    const spy = spyOnList();
    const server = await startTestServer('memory', { front, batchSize: 10, wrapStorage: (storage) => spy.wrap(storage) });
    try {
      await seed(server.storage, 'a', 20_000);
      const controller = new AbortController();
      const response = await fetch(`${server.url}/plants`, {
        headers: { authorization: `Bearer ${TOKENS.owner}`, 'x-request-id': 'gone' },
        signal: controller.signal,
      });
      const reader = response.body!.getReader();
      await reader.read();
      controller.abort();
      // Wait for the server to notice and log the cut-short request.
      const logged = () => server.logs.find((entry) => entry.message === 'request' && entry.fields?.requestId === 'gone');
      await vi.waitFor(() => expect(logged()).toBeDefined(), { timeout: 10_000, interval: 10 });
      expect(logged()!.fields).toMatchObject({ status: 200, aborted: true });
      const callsAtEnd = spy.calls;
      await sleep(100);
      expect(spy.calls).toBe(callsAtEnd);
      expect(spy.calls).toBeLessThan(20_000 / 10);
      expect((await api(server.url, 'GET', '/healthz')).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('answers 503 when storage fails before the first byte, without internals', async () => {
    const spy = spyOnList(1);
    const server = await startTestServer('memory', { front, wrapStorage: (storage) => spy.wrap(storage) });
    try {
      const response = await api(server.url, 'GET', '/plants', { token: TOKENS.owner });
      expect(response.status).toBe(503);
      expect(response.json).toEqual({ error: 503, message: 'storage unavailable' });
      expect(response.text).not.toContain('secret');
      const failure = server.logs.find((entry) => entry.level === 'error');
      expect(String(failure?.fields?.error)).toContain('SQLITE_IOERR');
    } finally {
      await server.close();
    }
  });

  it('aborts the connection when storage fails mid-stream, and stays healthy', async () => {
    const spy = spyOnList(5);
    const server = await startTestServer('memory', { front, batchSize: 10, wrapStorage: (storage) => spy.wrap(storage) });
    try {
      await seed(server.storage, 'a', 1000);
      const response = await fetch(`${server.url}/plants`, { headers: { authorization: `Bearer ${TOKENS.owner}` } });
      expect(response.status).toBe(200);
      // The body is cut short: the client must not mistake it for a complete list.
      await expect(response.text()).rejects.toThrow();
      expect(server.logs.some((entry) => entry.level === 'error' && entry.message === 'request failed')).toBe(true);
      expect((await api(server.url, 'GET', '/healthz')).status).toBe(200);
      expect((await api(server.url, 'GET', '/plants?limit=2', { token: TOKENS.owner })).json).toHaveLength(2);
    } finally {
      await server.close();
    }
  });
});
