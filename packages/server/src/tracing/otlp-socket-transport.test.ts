import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { responseOf, socketTransport } from './otlp-socket-transport.js';
import { retryingTransport } from './retrying-transport.js';

/** A TCP server on loopback that answers each connection's request with the next of `answers` (raw HTTP, written as given). */
async function rawCollector(answers: readonly (string | 'hang')[], options: { close?: boolean } = {}) {
  const requests: string[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    const answer = answers[Math.min(requests.length, answers.length - 1)]!;
    const chunks: Buffer[] = [];
    let answered = false;
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      const text = Buffer.concat(chunks).toString('latin1');
      const headEnd = text.indexOf('\r\n\r\n');
      const length = /content-length: (\d+)/i.exec(text);
      if (answered || headEnd === -1 || length === null || text.length - headEnd - 4 < Number(length[1])) return;
      answered = true;
      requests.push(text);
      if (answer === 'hang') return;
      if (options.close === false) socket.write(answer);
      else socket.end(answer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`;
  const close = () => {
    for (const socket of sockets) socket.destroy();
    return new Promise((resolve) => server.close(resolve));
  };
  return { url, requests, close };
}

const OK = 'HTTP/1.1 200 OK\r\nContent-Type: application/x-protobuf\r\nContent-Length: 0\r\n\r\n';
const headers = async () => ({ 'Content-Type': 'application/x-protobuf', 'x-api-key': 'secret' });
const body = new Uint8Array([1, 2, 3, 4]);
const open: Array<() => Promise<unknown>> = [];

afterEach(async () => {
  await Promise.all(open.splice(0).map((close) => close()));
});

async function collector(...args: Parameters<typeof rawCollector>) {
  const started = await rawCollector(...args);
  open.push(started.close);
  return started;
}

describe('socketTransport', () => {
  it('sends one HTTP/1.1 POST with the headers, the body and Connection: close, and takes a 2xx as success', async () => {
    const endpoint = await collector([OK]);
    const result = await socketTransport({ url: endpoint.url, headers, compression: 'none' }).send(body, 5000);
    expect(result.status).toBe('success');
    const [request] = endpoint.requests;
    expect(request).toMatch(/^POST \/v1\/traces HTTP\/1\.1\r\n/);
    expect(request).toContain('\r\nx-api-key: secret\r\n');
    expect(request).toContain('\r\nContent-Length: 4\r\nConnection: close\r\n\r\n\x01\x02\x03\x04');
  });

  it('reads an answer whose length it gives without waiting for the collector to close', async () => {
    const endpoint = await collector(['HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok'], { close: false });
    const result = await socketTransport({ url: endpoint.url, headers, compression: 'none' }).send(body, 5000);
    expect(result).toEqual({ status: 'success', data: Buffer.from('ok') });
  });

  it('takes 429, 502, 503 and 504 as worth retrying, with the Retry-After they give, and other statuses as failures', async () => {
    const endpoint = await collector(['HTTP/1.1 503 Service Unavailable\r\nRetry-After: 2\r\nContent-Length: 0\r\n\r\n', 'HTTP/1.1 400 Bad Request\r\nContent-Length: 9\r\n\r\nbad spans']);
    const transport = socketTransport({ url: endpoint.url, headers, compression: 'none' });
    expect(await transport.send(body, 5000)).toEqual({ status: 'retryable', retryInMillis: 2000 });
    const failed = await transport.send(body, 5000);
    expect(failed.status).toBe('failure');
    expect(failed.status === 'failure' && failed.error.message).toBe('the OTLP endpoint answered 400 Bad Request: bad spans');
  });

  it('gives up on a collector that does not answer within the timeout, as a retryable failure', async () => {
    const endpoint = await collector(['hang']);
    const started = Date.now();
    const result = await socketTransport({ url: endpoint.url, headers, compression: 'none' }).send(body, 200);
    expect(result.status).toBe('retryable');
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('takes a refused connection as worth retrying', async () => {
    const endpoint = await collector([OK]);
    await endpoint.close();
    const result = await socketTransport({ url: endpoint.url, headers, compression: 'none' }).send(body, 5000);
    expect(result.status).toBe('retryable');
  });

  it('refuses a header that is not valid HTTP (a line break would smuggle a header in) and sends nothing', async () => {
    const endpoint = await collector([OK]);
    const bad = async () => ({ 'x-api-key': 'secret\r\nx-injected: 1' });
    const result = await socketTransport({ url: endpoint.url, headers: bad, compression: 'none' }).send(body, 5000);
    expect(result.status).toBe('failure');
    expect(endpoint.requests).toHaveLength(0);
  });

  it('sends only to http: endpoints (https: ones keep the SDK transport and its TLS settings)', () => {
    expect(() => socketTransport({ url: 'https://collector.example/v1/traces', headers, compression: 'none' })).toThrow(RangeError);
  });
});

describe('responseOf', () => {
  it('takes an answer cut off before its head ends as worth retrying, and one that is not HTTP as a failure', () => {
    expect(responseOf(Buffer.from('HTTP/1.1 200 OK\r\nContent-Le')).status).toBe('retryable');
    expect(responseOf(Buffer.from('SSH-2.0-OpenSSH_9.2\r\n\r\n')).status).toBe('failure');
  });

  it('reads Retry-After as an HTTP date too, and leaves an unreadable one to the back-off', () => {
    const inTenSeconds = new Date(Date.now() + 10_000).toUTCString();
    const dated = responseOf(Buffer.from(`HTTP/1.1 429 Too Many Requests\r\nretry-after: ${inTenSeconds}\r\n\r\n`));
    expect(dated.status === 'retryable' && dated.retryInMillis).toBeGreaterThan(8000);
    expect(responseOf(Buffer.from('HTTP/1.1 502 Bad Gateway\r\nRetry-After: soon\r\n\r\n'))).toEqual({ status: 'retryable', retryInMillis: undefined });
  });
});

describe('retryingTransport', () => {
  it('sends a retryable export again after the wait the collector asks for, until it succeeds', async () => {
    const endpoint = await collector(['HTTP/1.1 503 Service Unavailable\r\nRetry-After: 0\r\nContent-Length: 0\r\n\r\n', OK]);
    const result = await retryingTransport(socketTransport({ url: endpoint.url, headers, compression: 'none' })).send(body, 5000);
    expect(result.status).toBe('success');
    expect(endpoint.requests).toHaveLength(2);
  });

  it('does not retry a failure, nor a retry that would start after the export timeout', async () => {
    const failing = await collector(['HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n']);
    expect((await retryingTransport(socketTransport({ url: failing.url, headers, compression: 'none' })).send(body, 5000)).status).toBe('failure');
    expect(failing.requests).toHaveLength(1);
    const busy = await collector(['HTTP/1.1 429 Too Many Requests\r\nRetry-After: 60\r\nContent-Length: 0\r\n\r\n']);
    expect((await retryingTransport(socketTransport({ url: busy.url, headers, compression: 'none' })).send(body, 5000)).status).toBe('retryable');
    expect(busy.requests).toHaveLength(1);
  });

  it('backs off between retries when the collector names no wait, and gives up after five', async () => {
    const endpoint = await collector(['HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n']);
    const waits: number[] = [];
    const sleep = async (ms: number) => {
      waits.push(ms);
    };
    const result = await retryingTransport(socketTransport({ url: endpoint.url, headers, compression: 'none' }), sleep).send(body, 60_000);
    expect(result.status).toBe('retryable');
    expect(endpoint.requests).toHaveLength(6);
    expect(waits[0]).toBeGreaterThanOrEqual(800);
    expect(waits[0]).toBeLessThanOrEqual(1200);
    expect(waits.at(-1)).toBeLessThanOrEqual(5000);
  });
});
