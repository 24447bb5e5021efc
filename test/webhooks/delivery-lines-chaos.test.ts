import { createHash, randomInt } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { startServe, type ServeProcess } from '../support/cli-process.js';
import { postgresAvailable, TEST_DATABASE_URL, testSchemas, withClient } from '../support/postgres.js';
import { runCliInProcess } from '../support/run-cli-in-process.js';

// Delivery lines under a seeded random schedule on PostgreSQL: two service instances (one SIGKILLed and replaced), writers
// creating and deleting plants, endpoints disabled, enabled, deleted, created and switched between ordering modes,
// deliveries resent and recovered, and a receiver that fails, hangs and answers binary bytes (NUL included). Then, with the
// receiver healthy: every line drains, `webhooks check` finds nothing stuck, no message was attempted twice at once, two
// messages of one line were never attempted at once, and each line's messages were first attempted in the order they were
// queued. The seed (PLANT_STORE_CHAOS_SEED, else random) decides the schedule and every answer of the receiver; it is
// printed with any failure. Only what happened is checked, never how long it took.

const SEED = Number(process.env['PLANT_STORE_CHAOS_SEED'] ?? randomInt(2 ** 31));
/** How long the schedule runs (PLANT_STORE_CHAOS_MS). @default 45000 */
const CHAOS_MS = Number(process.env['PLANT_STORE_CHAOS_MS'] ?? 45_000);
const TOKEN = 's3cret';
const PLANTS = 12;
const RETRY = '100ms,200ms,300ms';
const RETRIES = RETRY.split(',').length;
const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };

/** mulberry32: a small seeded generator, so a seed replays the same schedule. */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/** A draw in [0, 1) fixed by the seed and the attempt, whichever instance makes it and whenever it arrives. */
const drawFor = (...parts: (string | number)[]) =>
  createHash('sha256')
    .update([SEED, ...parts].join(':'))
    .digest()
    .readUInt32BE(0) /
  2 ** 32;

/** One attempt as the receiver saw it: from its head to the end of the answer (or the connection). */
interface Attempt {
  readonly webhookId: string;
  readonly path: string;
  readonly start: number;
  end: number;
}

type Mood = 'chaos' | 'healthy';

/** A receiver whose answers come from the seed while in chaos, 204 once healthy; it keeps every attempt's interval. */
async function startChaosReceiver() {
  const attempts: Attempt[] = [];
  const inFlight = new Map<string, number>();
  const attemptsOf = new Map<string, number>();
  let concurrentDuplicates = 0;
  let mood: Mood = 'chaos';
  const binary = Buffer.from([0x00, 0xff, 0x00, 0xc3, 0x28, 0x7b, 0x00, 0x0a]);
  const server = http.createServer((req, res) => {
    const webhookId = String(req.headers['webhook-id'] ?? '');
    const attempt: Attempt = { webhookId, path: req.url ?? '', start: performance.now(), end: Number.POSITIVE_INFINITY };
    attempts.push(attempt);
    const running = (inFlight.get(webhookId) ?? 0) + 1;
    if (running > 1) concurrentDuplicates++;
    inFlight.set(webhookId, running);
    res.once('close', () => {
      attempt.end = performance.now();
      inFlight.set(webhookId, inFlight.get(webhookId)! - 1);
    });
    req.resume();
    req.on('end', () => {
      const number = (attemptsOf.get(webhookId) ?? 0) + 1;
      attemptsOf.set(webhookId, number);
      if (mood === 'healthy') return void res.writeHead(204).end();
      const draw = drawFor(webhookId, number);
      if (draw < 0.4) return void res.writeHead(204).end();
      if (draw < 0.55) return void res.writeHead(500).end('no');
      if (draw < 0.65) return; // hangs: the attempt times out
      if (draw < 0.8) return void res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(binary);
      if (draw < 0.9) return void res.writeHead(500, { 'content-type': 'application/octet-stream' }).end(binary);
      if (draw < 0.95) return void res.writeHead(503, { 'retry-after': '1' }).end();
      res.writeHead(410).end();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    attempts,
    concurrentDuplicates: () => concurrentDuplicates,
    heal() {
      mood = 'healthy';
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

interface DeliveryRow {
  readonly id: string;
  readonly endpoint_id: string;
  readonly ordering_key: string | null;
  readonly status: string;
  readonly created_at: string;
  readonly seq: string;
}

/** Each stuck line with its messages (status, due time, place) and its endpoint's state, for the failure message. */
async function history(schema: string, stuck: unknown[]): Promise<unknown[]> {
  const tables = { deliveries: `${pg.escapeIdentifier(schema)}.webhook_deliveries`, endpoints: `${pg.escapeIdentifier(schema)}.webhook_endpoints` };
  return withClient((client) =>
    Promise.all(
      (stuck as { endpointId: string; orderingKey?: string }[]).map(async (line) => {
        const messages = await client.query(
          `SELECT id, event_type, status, next_attempt_at, line_seq, seq, created_at, updated_at, attempt_count, lease_owner
           FROM ${tables.deliveries} WHERE endpoint_id = $1 AND ordering_key IS NOT DISTINCT FROM $2 ORDER BY seq`,
          [line.endpointId, line.orderingKey ?? null],
        );
        const endpoint = await client.query(`SELECT status, ordering, updated_at FROM ${tables.endpoints} WHERE id = $1`, [line.endpointId]);
        return { line, endpoint: endpoint.rows[0] ?? 'deleted', messages: messages.rows };
      }),
    ),
  );
}

describe.skipIf(!postgresAvailable)('delivery lines under a seeded random schedule on PostgreSQL', () => {
  const schemas = testSchemas();
  const running: ServeProcess[] = [];
  let receiver: Awaited<ReturnType<typeof startChaosReceiver>> | undefined;
  afterAll(async () => {
    await Promise.all(running.map((service) => service.stop('SIGKILL').catch(() => undefined)));
    await receiver?.close();
    await schemas.dropAll();
  });

  it('drain, stay unstuck, never overlap and keep each line in queue order', { timeout: 120_000 }, async () => {
    try {
      await chaos();
    } catch (error) {
      if (error instanceof Error) error.message = `seed ${SEED} (PLANT_STORE_CHAOS_SEED=${SEED} to replay): ${error.message}`;
      throw error;
    }
  });

  async function chaos(): Promise<void> {
    const random = generator(SEED);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    const hooks = (receiver = await startChaosReceiver());
    const schema = schemas.next();
    const storageArgs = ['--storage', 'postgres', '--db-schema', schema];
    const env = { PLANT_STORE_DATABASE_URL: TEST_DATABASE_URL };
    const serve = async () => {
      const service = await startServe(
        ['--port', '0', '--tokens', `${TOKEN}=acme`, '--log-level', 'error', ...storageArgs, '--webhook-timeout', '1s', '--webhook-retry', RETRY],
        { env: { ...env, PLANT_STORE_WEBHOOK_ALLOW_PRIVATE: 'true', PLANT_STORE_PORTAL: 'off' } },
      );
      running.push(service);
      return service;
    };
    const instances = [await serve(), await serve()];
    /** A request to a random live instance; `undefined` when it was lost with its instance. */
    const call = async (method: string, path: string, body?: unknown): Promise<Response | undefined> => {
      try {
        return await fetch(`${pick(instances).url}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
      } catch {
        return undefined;
      }
    };

    let endpointNumber = 0;
    const endpoints = new Set<string>();
    const createEndpoint = async () => {
      const ordering = random() < 0.75 ? 'plant' : 'none';
      const url = hooks.url(`/e${endpointNumber++}`);
      const created = await call('POST', '/webhooks/endpoints', { url, eventTypes: ['plant.created', 'plant.deleted'], ordering });
      if (created?.status === 201) endpoints.add(((await created.json()) as { id: string }).id);
    };
    for (let i = 0; i < 3; i++) await createEndpoint();
    expect(endpoints.size).toBe(3);

    const started = Date.now();
    const deadline = started + CHAOS_MS;
    const busyPlants = new Set<number>();
    const resent = new Set<string>();

    /** Creates or deletes plants, one write at a time per plant, so a plant's messages are queued in the order of its writes. */
    const writer = async () => {
      let version = 0;
      while (Date.now() < deadline) {
        const id = 1 + Math.floor(random() * PLANTS);
        if (busyPlants.has(id)) {
          await sleep(1);
          continue;
        }
        busyPlants.add(id);
        try {
          const written = random() < 0.5 ? await call('POST', '/plants', { id, name: `plant ${id} v${version++}` }) : await call('DELETE', `/plants/${id}`);
          // A write lost with its instance may have committed or not: the plant stays busy until a read on a live instance settles it.
          if (written === undefined) await vi.waitFor(async () => expect((await call('GET', `/plants/${id}`))?.status).toBeOneOf([200, 404]));
        } finally {
          busyPlants.delete(id);
        }
        await sleep(random() * 20);
      }
    };

    const endpointOperator = async () => {
      while (Date.now() < deadline) {
        await sleep(150 + random() * 400);
        const id = pick([...endpoints]);
        const draw = random();
        if (draw < 0.3) await call('PATCH', `/webhooks/endpoints/${id}`, { status: 'disabled' });
        else if (draw < 0.6) await call('PATCH', `/webhooks/endpoints/${id}`, { status: 'enabled' });
        else if (draw < 0.85) await call('PATCH', `/webhooks/endpoints/${id}`, { ordering: random() < 0.5 ? 'plant' : 'none' });
        else {
          const deleted = await call('DELETE', `/webhooks/endpoints/${id}`);
          if (deleted?.status === 204) endpoints.delete(id);
          await createEndpoint();
        }
      }
    };

    const deliveryOperator = async () => {
      while (Date.now() < deadline) {
        await sleep(200 + random() * 500);
        if (random() < 0.6) {
          const listed = await call('GET', '/webhooks/deliveries?limit=50');
          if (listed?.status !== 200) continue;
          const deliveries = (await listed.json()) as { id: string }[];
          if (deliveries.length === 0) continue;
          const { id } = pick(deliveries);
          // Noted before it is sent: a resend whose answer was lost may still have happened.
          resent.add(id);
          await call('POST', `/webhooks/deliveries/${id}/resend`);
        } else {
          await call('POST', `/webhooks/endpoints/${pick([...endpoints])}/recover`, { since: new Date(started).toISOString() });
        }
      }
    };

    /** SIGKILLs one instance part-way through (attempts in flight and all) and starts another. */
    const killer = async () => {
      await sleep(CHAOS_MS * (0.3 + random() * 0.3));
      const victim = instances.splice(Math.floor(random() * instances.length), 1)[0]!;
      await victim.stop('SIGKILL');
      instances.push(await serve());
    };

    await Promise.all([writer(), writer(), writer(), endpointOperator(), deliveryOperator(), killer()]);

    // Healthy from now on: what is pending must drain (a killed instance's leases end after the timeout + 10 s).
    hooks.heal();
    const pending = async () =>
      withClient(async (client) => {
        const { rows } = await client.query<{ count: string }>(
          `SELECT count(*) AS count FROM ${pg.escapeIdentifier(schema)}.webhook_deliveries WHERE status = 'pending'`,
        );
        return Number(rows[0]!.count);
      });
    // Until nothing is pending, or the check finds a line that can never move (nothing writes any more, so it stays so).
    const check = () => runCliInProcess(['webhooks', 'check', '--json', ...storageArgs], env);
    let stuck: unknown[] = [];
    const drained = await vi
      .waitFor(
        async () => {
          const checked = await check();
          expect(checked.stderr, 'webhooks check').toBe('');
          stuck = JSON.parse(checked.stdout) as unknown[];
          if (stuck.length === 0) expect(await pending()).toBe(0);
        },
        { timeout: 40_000, interval: 500 },
      )
      .then(
        () => stuck.length === 0,
        () => false,
      );
    // The invariant of `plant-store webhooks check`: nothing pending lacks a way to become due.
    expect(stuck.length === 0 ? [] : await history(schema, stuck), 'stuck lines (messages that can never become due), with their history').toEqual([]);
    expect((await check()).status).toBe(0);
    expect(drained, `every line drains: ${await pending()} still pending`).toBe(true);

    expect(hooks.concurrentDuplicates(), 'attempts of one message in flight at once').toBe(0);

    const rows = await withClient(async (client) => {
      const statement = `SELECT id, endpoint_id, ordering_key, status, created_at, seq FROM ${pg.escapeIdentifier(schema)}.webhook_deliveries`;
      return (await client.query<DeliveryRow>(statement)).rows;
    });
    // Failed at some point (410, out of retries, or by a disable or delete), so maybe recovered: a recovery queues at the back of the line.
    const everFailed = await withClient(async (client) => {
      const statement = `
        SELECT delivery_id FROM ${pg.escapeIdentifier(schema)}.webhook_attempts GROUP BY delivery_id
        HAVING bool_or(status_code = 410 OR error IN ('endpoint disabled', 'endpoint deleted'))
          OR count(*) FILTER (WHERE NOT interrupted AND (status_code IS NULL OR status_code NOT BETWEEN 200 AND 299)) >= ${RETRIES + 1}`;
      return new Set((await client.query<{ delivery_id: string }>(statement)).rows.map((row) => row.delivery_id));
    });
    const lines = new Map<string, DeliveryRow[]>();
    for (const row of rows) {
      if (row.ordering_key === null) continue;
      const key = `${row.endpoint_id} plant ${row.ordering_key}`;
      lines.set(key, [...(lines.get(key) ?? []), row]);
    }
    const attemptsOf = new Map<string, Attempt[]>();
    for (const attempt of hooks.attempts) attemptsOf.set(attempt.webhookId, [...(attemptsOf.get(attempt.webhookId) ?? []), attempt]);
    let checkedLines = 0;
    for (const [line, messages] of lines) {
      messages.sort((a, b) => Number(BigInt(a.created_at) - BigInt(b.created_at)) || Number(BigInt(a.seq) - BigInt(b.seq)));
      // Two messages of one line are never in flight at once.
      const intervals = messages
        .flatMap((message) => attemptsOf.get(message.id) ?? [])
        .sort((a, b) => a.start - b.start)
        .filter((attempt, index, all) => index > 0 && attempt.webhookId !== all[index - 1]!.webhookId && attempt.start < all[index - 1]!.end);
      expect(
        intervals.map((attempt) => attempt.webhookId),
        `${line}: attempts of two of its messages overlapped`,
      ).toEqual([]);
      // First attempts in queue order, among the messages queued once: never resent nor failed (a resend or recovery queues at the back).
      const firsts = messages
        .filter((message) => !resent.has(message.id) && !everFailed.has(message.id))
        .flatMap((message) => attemptsOf.get(message.id)?.slice(0, 1) ?? []);
      const outOfOrder = firsts.filter((attempt, index) => index > 0 && attempt.start < firsts[index - 1]!.start);
      expect(
        outOfOrder.map((attempt) => attempt.webhookId),
        `${line}: first attempted out of queue order`,
      ).toEqual([]);
      if (firsts.length > 1) checkedLines++;
    }
    // The schedule did exercise lines (a guard against a run that checked nothing).
    expect(checkedLines).toBeGreaterThan(0);
  }
});
