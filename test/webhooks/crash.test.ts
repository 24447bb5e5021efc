import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { reservePort, startReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import { eventually } from '../support/eventually.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'plant-store-crash-'));
const children: ChildProcess[] = [];
let hooks: WebhookReceiver | undefined;

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await hooks?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Starts the real CLI service and resolves with its base URL once it prints its ready line. */
function startCli(args: string[]): Promise<{ child: ChildProcess; base: string; exited: Promise<unknown> }> {
  const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', 'packages/server/src/cli.ts', 'serve', ...args], {
    cwd: root,
    env: { ...process.env, NODE_ENV: 'test' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    let stdout = '';
    const timer = setTimeout(() => reject(new Error(`service did not start: ${stderr}`)), 20_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const ready = /listening on (http:\/\/\S+)/.exec(stdout);
      if (ready) {
        clearTimeout(timer);
        child.stdout!.removeAllListeners('data');
        child.stdout!.resume(); // keep draining its log lines
        resolve({ child, base: ready[1]!, exited });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`service exited with ${code} before it was ready: ${stderr}`));
    });
  });
}

describe('crash safety of the webhook outbox', () => {
  it('delivers the webhook of every acknowledged plant after a SIGKILL mid-load and a restart', async () => {
    const receiverPort = await reservePort(); // noted, and nothing listens there yet
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const args = [
      '--port',
      '0',
      '--storage',
      'sqlite',
      '--db',
      join(dir, 'plant-store.db'),
      '--tokens',
      't=acme',
      '--webhooks',
      JSON.stringify([{ url: `http://127.0.0.1:${receiverPort}/hook`, secret }]),
      '--webhook-retry',
      '50ms,100ms,200ms,400ms,800ms,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s',
      '--webhook-timeout',
      '1s',
      '--log-level',
      'error',
    ];

    // 1. Load, then SIGKILL while requests are still in flight.
    const first = await startCli(args);
    const acknowledged: bigint[] = [];
    let nextId = 9_223_372_036_854_775_000n; // near int64 max: ids must survive the round trip exactly
    let killed = false;
    const worker = async () => {
      while (!killed) {
        const id = nextId++;
        try {
          const response = await fetch(`${first.base}/plants`, {
            method: 'POST',
            headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
            body: `{"id":${id},"name":"plant ${id}"}`,
          });
          await response.arrayBuffer();
          if (response.status === 200) acknowledged.push(id);
          else throw new Error(`create answered ${response.status}`);
        } catch (error) {
          if (!killed) throw error;
        }
      }
    };
    const load = Promise.all(Array.from({ length: 12 }, worker));
    await eventually(() => acknowledged.length >= 300, '300 acknowledged creates', 15_000);
    killed = true;
    first.child.kill('SIGKILL');
    await first.exited;
    await load;

    // 2. Restart on the same file; the receiver comes up on the noted port.
    const second = await startCli(args);
    hooks = await startReceiver(receiverPort);

    // Every acknowledged plant is there.
    for (let i = 0; i < acknowledged.length; i += 25) {
      await Promise.all(
        acknowledged.slice(i, i + 25).map(async (id) => {
          const response = await fetch(`${second.base}/plants/${id}`, { headers: { authorization: 'Bearer t' } });
          expect({ id, status: response.status }).toEqual({ id, status: 200 });
          expect(await response.text()).toBe(`{"id":${id},"name":"plant ${id}"}`);
        }),
      );
    }

    // Every acknowledged plant's webhook arrives (leases held at the crash end after timeout + 10 s).
    const wanted = new Set(acknowledged.map(String));
    const arrived = () => new Set(hooks!.received.map((request) => /"id":(-?\d+)/.exec(request.body)?.[1]));
    await eventually(() => [...wanted].every((id) => arrived().has(id)), 'a webhook for every acknowledged plant', 25_000);
    for (const request of hooks.received) new Webhook(secret).verify(request.body, request.headers);

    const perMessage = new Map<string, number>();
    for (const request of hooks.received) perMessage.set(request.headers['webhook-id']!, (perMessage.get(request.headers['webhook-id']!) ?? 0) + 1);
    const duplicates = [...perMessage.values()].filter((count) => count > 1).length;
    console.log(
      `crash test: ${acknowledged.length} acknowledged creates, ${hooks.received.length} webhooks received, ` +
        `${perMessage.size} distinct messages, ${duplicates} delivered more than once`,
    );

    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  }, 60_000);
});
