import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { startServe, type ServeProcess } from '../support/cli-process.js';
import { postgresAvailable, TEST_DATABASE_URL, testSchemas } from '../support/postgres.js';

// Several instances end to end: three `plant-store serve` processes on one PostgreSQL
// schema behind a client that spreads its requests over them, one of them
// SIGKILLed mid-load and started again. Afterwards every acknowledged plant
// is readable from every instance, every webhook arrived at least once, no
// message was ever attempted by two instances at once, and Retry-After held
// across instances.

const SECRET = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
const TOKEN = 's3cret';
const PLANTS = 240;
/** Plants whose first attempt the receiver answers with 503 + Retry-After: 1. */
const throttled = (id: number) => id % 10 === 0;

interface Attempt {
  readonly at: number;
  readonly status: number;
}

/** A receiver that notes every attempt per webhook-id and whether two attempts of one message were ever in flight at once. */
async function startCountingReceiver() {
  const attempts = new Map<string, Attempt[]>();
  const plantIds = new Map<string, number>();
  const inFlight = new Map<string, number>();
  let concurrentDuplicates = 0;
  const server = http.createServer((req, res) => {
    const id = String(req.headers['webhook-id']);
    const chunks: Buffer[] = [];
    const running = (inFlight.get(id) ?? 0) + 1;
    inFlight.set(id, running);
    if (running > 1) concurrentDuplicates++;
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const plantId = Number(/"id":(-?\d+)/.exec(Buffer.concat(chunks).toString())![1]);
      plantIds.set(id, plantId);
      const previous = attempts.get(id) ?? [];
      const status = throttled(plantId) && previous.length === 0 ? 503 : 204;
      attempts.set(id, [...previous, { at: Date.now(), status }]);
      // Answer a little later, so overlapping attempts of one message would be seen overlapping.
      setTimeout(() => {
        inFlight.set(id, inFlight.get(id)! - 1);
        res.writeHead(status, status === 503 ? { 'retry-after': '1' } : {}).end();
      }, 5);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    attempts,
    delivered: () => new Set([...attempts].filter(([, list]) => list.some((a) => a.status === 204)).map(([id]) => plantIds.get(id)!)),
    concurrentDuplicates: () => concurrentDuplicates,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

describe.skipIf(!postgresAvailable)('several instances on one PostgreSQL database', () => {
  const schemas = testSchemas();
  const running: ServeProcess[] = [];
  afterAll(async () => {
    await Promise.all(running.map((service) => service.stop('SIGKILL').catch(() => undefined)));
    await schemas.dropAll();
  });

  it('behave as one service through a SIGKILL and restart', { timeout: 120_000 }, async () => {
    const receiver = await startCountingReceiver();
    const schema = schemas.next();
    const start = async () => {
      const service = await startServe(['--port', '0', '--storage', 'postgres', '--db-schema', schema, '--tokens', `${TOKEN}=acme`, '--log-level', 'warn'], {
        env: {
          PLANT_STORE_DATABASE_URL: TEST_DATABASE_URL,
          PLANT_STORE_WEBHOOKS: JSON.stringify([{ url: receiver.url, secret: SECRET }]),
          PLANT_STORE_WEBHOOK_RETRY: '100ms,100ms,100ms,100ms,100ms,100ms',
          // A short timeout keeps the lease of a killed instance's attempt (timeout + 10 s) inside the test.
          PLANT_STORE_WEBHOOK_TIMEOUT: '1s',
        },
      });
      running.push(service);
      return service;
    };
    const instances = [await start(), await start(), await start()];
    const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
    const acknowledged: number[] = [];

    const create = async (id: number) => {
      const instance = instances[id % 3]!;
      try {
        const response = await fetch(`${instance.url}/plants`, { method: 'POST', headers, body: JSON.stringify({ id, name: `plant ${id}` }) });
        if (response.status === 200) acknowledged.push(id);
      } catch {
        // The instance was killed under this request: not acknowledged, so nothing is owed.
      }
    };
    const load = async (from: number, to: number) => {
      for (let id = from; id < to; id += 8) await Promise.all(Array.from({ length: Math.min(8, to - id) }, (_, k) => create(id + k)));
    };

    await load(1, PLANTS / 2);
    instances[1]!.child.kill('SIGKILL');
    await load(PLANTS / 2, (PLANTS * 3) / 4);
    await instances[1]!.waitForExit();
    instances[1] = await start();
    await load((PLANTS * 3) / 4, PLANTS + 1);

    // Most plants were acknowledged (only those routed to the killed instance while it was down were not).
    expect(acknowledged.length).toBeGreaterThan(PLANTS * 0.6);

    // Every acknowledged plant is readable from every instance.
    for (const instance of instances) {
      const listed = (await (await fetch(`${instance.url}/plants`, { headers })).json()) as { id: number }[];
      const ids = new Set(listed.map((plant) => plant.id));
      expect(acknowledged.filter((id) => !ids.has(id))).toEqual([]);
    }

    // Every acknowledged plant's webhook arrived (a killed instance's leased attempts are taken over after the lease).
    await vi.waitFor(
      () => {
        const delivered = receiver.delivered();
        expect(acknowledged.filter((id) => !delivered.has(id))).toEqual([]);
      },
      { timeout: 40_000, interval: 250 },
    );

    // No message was ever attempted by two instances at once.
    expect(receiver.concurrentDuplicates()).toBe(0);

    // Retry-After: 1 held whichever instance made the next attempt.
    const retried = [...receiver.attempts.values()].filter((list) => list[0]!.status === 503 && list.length > 1);
    expect(retried.length).toBeGreaterThan(0);
    for (const list of retried) expect(list[1]!.at - list[0]!.at).toBeGreaterThanOrEqual(950);

    await receiver.close();
  });
});
