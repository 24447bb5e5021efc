import { connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startServe, type ServeProcess } from '../support/cli-process.js';
import { eventually } from '../support/eventually.js';

const TOKEN = 'shutdown-test-token';
const ENV = { PLANT_STORE_TOKENS: `${TOKEN}=acme`, PLANT_STORE_STORAGE: 'memory' };

/** A raw connection, so a test decides exactly when each byte of a request is sent. */
interface RawConnection {
  readonly socket: Socket;
  /** Everything received so far. */
  received(): string;
  /** Resolves when the server has closed the connection (or it errored). */
  readonly closed: Promise<void>;
}

async function open(url: string): Promise<RawConnection> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  let received = '';
  socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.on('error', () => {}); // a reset shows up as `closed`
  return { socket, received: () => received, closed };
}

function postHead(body: string): string {
  return (
    'POST /plants HTTP/1.1\r\nHost: test\r\n' +
    `Authorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`
  );
}

function refused(url: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
  });
}

const shuttingDown = (service: ServeProcess) => () => service.logs().some((log) => log['msg'] === 'shutting down');

describe('graceful shutdown of the spawned service', () => {
  it('on SIGTERM stops accepting, drops idle connections, finishes in-flight requests and exits 0', async () => {
    const service = await startServe(['--port=0'], { env: ENV });
    try {
      // An idle keep-alive connection: must not hold the shutdown up.
      const idle = await open(service.url);
      idle.socket.write('GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n');
      await eventually(() => idle.received().endsWith('{"status":"ok"}'), 'the health check');

      // A create whose body is still arriving when the signal comes.
      const body = '{"id": 42, "name": "Slow Fern", "tag": "in-flight"}';
      const slow = await open(service.url);
      slow.socket.write(postHead(body) + body.slice(0, 10));
      // Let the server read the request head, so the request is in flight (not an idle connection).
      await new Promise((resolve) => setTimeout(resolve, 500));

      service.child.kill('SIGTERM');
      await eventually(shuttingDown(service), 'the shutting down log line');

      await idle.closed;
      expect(await refused(service.url)).toBe('ECONNREFUSED');
      expect(slow.received()).toBe('');

      slow.socket.write(body.slice(10));
      await slow.closed;
      expect(slow.received()).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
      expect(slow.received().endsWith('\r\n\r\n{"id":42,"name":"Slow Fern","tag":"in-flight"}')).toBe(true);

      const exit = await service.waitForExit(10_000);
      expect(exit.code).toBe(0);
      expect(exit.stderr).toBe('');
      const logs = service.logs();
      expect(logs.find((log) => log['msg'] === 'request' && log['method'] === 'POST')).toMatchObject({ path: '/plants', status: 200 });
      expect(logs.some((log) => log['level'] === 'warn')).toBe(false);
      expect(logs.at(-1)).toMatchObject({ msg: 'stopped' });
    } finally {
      service.child.kill('SIGKILL');
    }
  });

  it('cuts a request that does not finish within the shutdown timeout, and still exits 0', async () => {
    const service = await startServe(['--port=0', '--shutdown-timeout=300ms'], { env: ENV });
    try {
      const body = '{"id": 7, "name": "Never Finished"}';
      const stalled = await open(service.url);
      stalled.socket.write(postHead(body) + body.slice(0, 5));
      // Let the server read the request head, so the request is in flight (not an idle connection).
      await new Promise((resolve) => setTimeout(resolve, 500));

      const exit = await service.stop('SIGTERM', 10_000);
      expect(exit.code).toBe(0);
      await stalled.closed;
      const messages = service.logs().map((log) => log['msg']);
      expect(messages).toContain('shutting down');
      const cut = messages.indexOf('shutdown grace period over; closing remaining connections');
      expect(cut).toBeGreaterThan(messages.indexOf('shutting down'));
      expect(messages.indexOf('stopped')).toBeGreaterThan(cut);
    } finally {
      service.child.kill('SIGKILL');
    }
  });
});
