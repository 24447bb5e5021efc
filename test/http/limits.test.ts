import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { api, expectObservationsDocumented } from '../support/api-client.js';
import { bodyOf, headerOf, openRaw, statusOf } from '../support/raw-http.js';
import { STORAGE_KINDS } from '../support/storage-kind.js';
import { HTTP_FRONTS } from '../support/http-front.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { TOKENS } from '../support/test-tokens.js';

expectObservationsDocumented();

interface StreamedUpload {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
  /** Bytes the client had written when the response arrived. */
  readonly bytesSent: number;
}

/**
 * POSTs a chunked body of up to `totalBytes` (no content-length) and stops
 * writing as soon as the response arrives.
 */
function streamUpload(port: number, totalBytes: number, token: string = TOKENS.owner): Promise<StreamedUpload> {
  return new Promise((resolve, reject) => {
    let bytesSent = 0;
    let answered = false;
    const req = request({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: '/plants',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
    });
    req.on('response', (res) => {
      answered = true;
      const sentAtResponse = bytesSent;
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body, bytesSent: sentAtResponse }));
      res.on('error', reject);
    });
    // The server closes the connection after its 413: write errors after the answer are expected.
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    const chunk = Buffer.alloc(16 * 1024, ' ');
    const pump = (): void => {
      while (!answered && bytesSent < totalBytes) {
        bytesSent += chunk.length;
        if (!req.write(chunk)) {
          req.once('drain', pump);
          return;
        }
      }
      if (!answered) req.end();
    };
    req.write('{"id":1,"name":"');
    pump();
  });
}

describe.each(STORAGE_KINDS.flatMap((kind) => HTTP_FRONTS.map((front) => [kind, front] as const)))('body limits (%s storage, %s)', (kind, front) => {
  let server: TestServer;
  let small: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind, { front });
    small = await startTestServer(kind, { maxBodyBytes: 64, front });
  });
  afterAll(async () => {
    await server.close();
    await small.close();
  });

  it('answers 413 for a declared content-length over 64 KiB, and closes the connection', async () => {
    const body = `{"id":1,"name":"${'x'.repeat(65_536)}"}`;
    const response = await api(server.url, 'POST', '/plants', { token: TOKENS.owner, body });
    expect(response.status).toBe(413);
    expect(response.json).toEqual({ error: 413, message: expect.stringContaining('65536') });
    expect(response.headers.get('x-request-id')).toBeTruthy();
    expect((await api(server.url, 'GET', '/plants/1', { token: TOKENS.owner })).status).toBe(404);
  });

  it('answers 413 while a chunked upload is still arriving, without reading it to the end', async () => {
    const total = 64 * 1024 * 1024;
    const upload = await streamUpload(server.port, total);
    expect(upload.status).toBe(413);
    expect(upload.headers.connection).toBe('close');
    expect(JSON.parse(upload.body)).toEqual({ error: 413, message: expect.stringContaining('65536') });
    // The answer came long before the client could send everything.
    expect(upload.bytesSent).toBeLessThan(total);
    expect((await api(server.url, 'GET', '/healthz')).status).toBe(200);
  });

  it('does not read or store the body of an unauthenticated upload', async () => {
    const upload = await streamUpload(server.port, 64 * 1024 * 1024, 'nobody');
    expect(upload.status).toBe(401);
    expect(upload.headers.connection).toBe('close');
    expect(upload.headers['www-authenticate']).toBe('Bearer realm="plant-store", error="invalid_token"');
  });

  it('keeps the connection after refusing a small body, closes it after leaving a large one unread', async () => {
    const conn = await openRaw(server.port);
    const post = (length: number) => `POST /plants HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;
    // Pipelined: a refused small upload, then a probe on the same connection.
    await conn.write(`${post(2)}{}GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n`);
    await vi.waitFor(() => expect(conn.received()).toContain('{"status":"ok"}'), { timeout: 10_000, interval: 5 });
    expect(statusOf(conn.received())).toBe(401);
    expect(headerOf(conn.received(), 'connection')).toBe('keep-alive');
    await conn.write(`${post(1_000_000)}{"id":`);
    const raw = await conn.closed;
    const last = raw.slice(raw.lastIndexOf('HTTP/1.1 '));
    expect(statusOf(last)).toBe(401);
    expect(headerOf(last, 'connection')).toBe('close');
  });

  it('accepts a body of exactly the limit and refuses one byte more, declared or chunked', async () => {
    const exact = `{"id":7,"name":"${'n'.repeat(64 - 18)}"}`;
    expect(Buffer.byteLength(exact)).toBe(64);
    const accepted = await api(small.url, 'POST', '/plants', { token: TOKENS.owner, body: exact });
    expect(accepted.status).toBe(200);
    const over = `{"id":8,"name":"${'n'.repeat(64 - 17)}"}`;
    const refused = await api(small.url, 'POST', '/plants', { token: TOKENS.owner, body: over });
    expect(refused.status).toBe(413);
    expect(refused.json).toEqual({ error: 413, message: 'body must not exceed 64 bytes' });

    // Same bodies without a content-length, as a chunked stream of small pieces.
    const chunked = async (body: string) => {
      const conn = await openRaw(small.port);
      await conn.write(
        `POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKENS.owner}\r\n` +
          'Content-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n',
      );
      for (let index = 0; index < body.length; index += 10) {
        const piece = body.slice(index, index + 10);
        if (!(await conn.write(`${piece.length.toString(16)}\r\n${piece}\r\n`))) break;
      }
      await conn.write('0\r\n\r\n');
      return conn.closed;
    };
    expect(statusOf(await chunked(exact.replace('"id":7', '"id":9')))).toBe(200);
    const raw = await chunked(over);
    expect(statusOf(raw)).toBe(413);
    expect(JSON.parse(bodyOf(raw))).toEqual({ error: 413, message: 'body must not exceed 64 bytes' });
    expect((await api(small.url, 'GET', '/plants/8', { token: TOKENS.owner })).status).toBe(404);

    // The same chunked bodies in one write: whole before the service reads them (taken from node:http's buffer at once).
    const whole = async (body: string) => {
      const conn = await openRaw(small.port);
      await conn.write(
        `POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKENS.owner}\r\n` +
          'Content-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n' +
          `${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n0\r\n\r\n`,
      );
      return conn.closed;
    };
    expect(statusOf(await whole(exact.replace('"id":7', '"id":5')))).toBe(200);
    expect(JSON.parse(bodyOf(await whole(over)))).toEqual({ error: 413, message: 'body must not exceed 64 bytes' });
    // The raw answer is read byte for byte (latin1): its UTF-8 decoded here.
    const utf8 = Buffer.from(bodyOf(await whole('{"id":6,"name":"ünï 🌿"}')), 'latin1').toString('utf8');
    expect(JSON.parse(utf8)).toEqual({ id: 6, name: 'ünï 🌿' });
  });
});

describe('timeouts and malformed requests', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('memory', { headersTimeoutMs: 400, requestTimeoutMs: 1500, keepAliveTimeoutMs: 300 });
  });
  afterAll(() => server.close());

  it('cuts off a client trickling header bytes, while serving others meanwhile', async () => {
    const slow = await openRaw(server.port);
    await slow.write('GET /healthz HTTP/1.1\r\nHost: x\r\n');
    let trickled = 0;
    const trickle = (async () => {
      // Never finishes the headers: only the server's headers timeout can end this.
      while (await slow.write(`X-Slow-${trickled++}: y\r\n`)) await sleep(50);
    })();

    // Others are answered while the slow client holds its connection open.
    for (let round = 0; round < 3; round++) {
      const response = await api(server.url, 'GET', '/healthz');
      expect(response.status).toBe(200);
    }
    expect(slow.socket.destroyed).toBe(false);

    const raw = await slow.closed;
    await trickle;
    expect(trickled).toBeGreaterThan(1);
    expect(statusOf(raw)).toBe(408);
    expect(headerOf(raw, 'content-type')).toBe('application/json');
    expect(headerOf(raw, 'x-request-id')).toBeTruthy();
    expect(JSON.parse(bodyOf(raw))).toEqual({ error: 408, message: expect.any(String) });
    expect((await api(server.url, 'GET', '/healthz')).status).toBe(200);
  });

  it('cuts off a connection that never sends anything', async () => {
    const silent = await openRaw(server.port);
    await silent.closed;
    expect(silent.socket.destroyed).toBe(true);
  });

  it('cuts off a client trickling its body after the request timeout', async () => {
    const slow = await openRaw(server.port);
    await slow.write(
      `POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKENS.owner}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"id":1,"name":"',
    );
    let trickled = 0;
    while (await slow.write('a')) {
      trickled++;
      await sleep(50);
    }
    const raw = await slow.closed;
    expect(trickled).toBeGreaterThan(5);
    expect(statusOf(raw)).toBe(408);
    expect(JSON.parse(bodyOf(raw))).toEqual({ error: 408, message: 'the request body did not arrive in time' });
    expect((await api(server.url, 'GET', '/plants/1', { token: TOKENS.owner })).status).toBe(404);
  });

  it('answers a stalled upload with a 408 in the error shape, and logs the 408 it sent', async () => {
    const stalled = await openRaw(server.port);
    await stalled.write(
      `POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKENS.owner}\r\nX-Request-Id: stalled-upload\r\n` +
        'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"id":2,"n',
    );
    const raw = await stalled.closed;
    expect(statusOf(raw)).toBe(408);
    expect(headerOf(raw, 'connection')).toBe('close');
    expect(headerOf(raw, 'x-request-id')).toBe('stalled-upload');
    expect(JSON.parse(bodyOf(raw))).toEqual({ error: 408, message: 'the request body did not arrive in time' });
    const logged = server.logs.find((entry) => entry.message === 'request' && entry.fields?.['requestId'] === 'stalled-upload');
    expect(logged?.fields).toMatchObject({ method: 'POST', path: '/plants', status: 408 });
    expect(logged?.fields?.['aborted']).toBeUndefined();
  });

  it('closes idle keep-alive connections after the keep-alive timeout', async () => {
    const conn = await openRaw(server.port);
    await conn.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    const raw = await conn.closed;
    expect(statusOf(raw)).toBe(200);
    expect(headerOf(raw, 'connection')).toBe('keep-alive');
  });

  it.each([
    ['a garbage request line', 'GARBAGE\r\n\r\n', 400],
    ['a header without a colon', 'GET /healthz HTTP/1.1\r\nHost: x\r\nbroken header\r\n\r\n', 400],
    ['an invalid content-length', 'POST /plants HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n', 400],
    ['conflicting framing headers', 'POST /plants HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n', 400],
    ['oversized headers', `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(20_000)}\r\n\r\n`, 431],
    ['an Expect header other than 100-continue', 'POST /plants HTTP/1.1\r\nHost: x\r\nExpect: bogus\r\nContent-Length: 2\r\n\r\n{}', 417],
  ])('answers %s in the error shape and closes', async (_, text, status) => {
    const conn = await openRaw(server.port);
    await conn.write(text);
    const raw = await conn.closed;
    expect(statusOf(raw)).toBe(status);
    expect(headerOf(raw, 'content-type')).toBe('application/json');
    expect(headerOf(raw, 'connection')).toBe('close');
    expect(JSON.parse(bodyOf(raw))).toEqual({ error: status, message: expect.any(String) });
    expect((await api(server.url, 'GET', '/healthz')).status).toBe(200);
  });
});
