import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { BUSY_WAIT_PRELOAD } from '../../bench/scenarios/busy-wait-scenario.js';

/** A plain node:http server with `handler` (the source of a request listener) that prints its port once listening. */
const serverSource = (handler: string) => `
import { createServer } from 'node:http';
const server = createServer(${handler});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
`;

// Answers every request with "ok".
const SERVER = serverSource(`(req, res) => res.end('ok')`);

// Ends its response twice (Node ignores the second) and writes to stderr how long both calls took.
const ENDS_TWICE = serverSource(`(req, res) => {
  const started = performance.now();
  res.end('ok');
  res.end();
  console.error('ends took ' + (performance.now() - started) + ' ms');
}`);

/** Starts SERVER (or `source`) under `node --import` the preload, with the given spin; resolves with its base URL and a stop. */
async function startSpinning(micros: string | undefined, source = SERVER) {
  const env = { ...process.env, PLANT_STORE_BENCH_BUSY_WAIT_US: micros };
  if (micros === undefined) delete env.PLANT_STORE_BENCH_BUSY_WAIT_US;
  const child = spawn(process.execPath, ['--import', BUSY_WAIT_PRELOAD, '--input-type=module', '-e', source], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const port = await new Promise<string | undefined>((resolve) => {
    child.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString().trim()));
    child.once('exit', () => resolve(undefined));
  });
  return {
    url: port === undefined ? undefined : `http://127.0.0.1:${port}/`,
    stderr: () => stderr,
    exited: child.exitCode !== null ? Promise.resolve() : once(child, 'exit'),
    stop: () => child.kill(),
  };
}

describe('the busy-wait preload', () => {
  it('holds every response for at least the given microseconds of wall-clock time, then sends it whole', async () => {
    // 30 ms: far above a loopback round trip, so the lower bound holds on any machine.
    const server = await startSpinning('30000');
    try {
      expect(server.url).toBeDefined();
      for (let request = 0; request < 3; request++) {
        const started = performance.now();
        const response = await fetch(server.url!);
        expect(await response.text()).toBe('ok');
        expect(performance.now() - started).toBeGreaterThanOrEqual(30);
      }
    } finally {
      server.stop();
    }
  });

  it('spins once per response, not again when a response is ended a second time', async () => {
    // 200 ms a spin: two would take at least 400 ms whatever the machine, one takes 200 ms and its scheduling.
    const server = await startSpinning('200000', ENDS_TWICE);
    try {
      expect(await (await fetch(server.url!)).text()).toBe('ok');
      await expect.poll(() => server.stderr()).toMatch(/ends took [\d.]+ ms/);
      const took = Number(/ends took ([\d.]+) ms/.exec(server.stderr())![1]);
      expect(took).toBeGreaterThanOrEqual(200);
      expect(took).toBeLessThan(400);
    } finally {
      server.stop();
    }
  });

  it('refuses to start without a positive spin, saying which variable', async () => {
    for (const micros of [undefined, '0', 'two']) {
      const server = await startSpinning(micros);
      expect(server.url).toBeUndefined();
      await server.exited;
      expect(server.stderr()).toContain('PLANT_STORE_BENCH_BUSY_WAIT_US must be a positive number of microseconds');
    }
  });
});
