import { createHash, randomInt } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { READY_LINE, spawnCli, type CliProcess, type ServeProcess } from '../support/cli-process.js';
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
/** How long the schedule runs (PLANT_STORE_CHAOS_MS). @default 40000 */
const CHAOS_MS = Number(process.env['PLANT_STORE_CHAOS_MS'] ?? 40_000);
/** Leads every failure message: how to replay this run. */
const REPLAY = `seed ${SEED} (PLANT_STORE_CHAOS_SEED=${SEED} to replay)`;
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
  /** `Date.now()` at its head and at its end (epoch ms, as the stored attempts). */
  readonly start: number;
  end: number;
  /** What the receiver answered: a status, `hang`, or `none` while the body was still arriving. */
  answer: string;
}

type Mood = 'chaos' | 'healthy';

const BINARY = Buffer.from([0x00, 0xff, 0x00, 0xc3, 0x28, 0x7b, 0x00, 0x0a]);
/** The receiver's answers in chaos, by cumulative share: status (0 hangs until the attempt times out) and body. */
const ANSWERS: readonly (readonly [upTo: number, status: number, body?: string | Buffer])[] = [
  [0.4, 204],
  [0.55, 500, 'no'],
  [0.65, 0],
  [0.8, 200, BINARY],
  [0.9, 500, BINARY],
  [0.95, 503],
  [1, 410],
];

/** A receiver whose answers come from the seed while in chaos, 2xx once healthy; it keeps every attempt's interval. */
async function startChaosReceiver() {
  const attempts: Attempt[] = [];
  const inFlight = new Map<string, number>();
  const attemptsOf = new Map<string, number>();
  let concurrentDuplicates = 0;
  let mood: Mood = 'chaos';
  const server = http.createServer((req, res) => {
    const webhookId = String(req.headers['webhook-id'] ?? '');
    const attempt: Attempt = { webhookId, path: req.url ?? '', start: Date.now(), end: Number.POSITIVE_INFINITY, answer: 'none' };
    attempts.push(attempt);
    const running = (inFlight.get(webhookId) ?? 0) + 1;
    if (running > 1) concurrentDuplicates++;
    inFlight.set(webhookId, running);
    res.once('close', () => {
      attempt.end = Date.now();
      inFlight.set(webhookId, inFlight.get(webhookId)! - 1);
    });
    req.resume();
    req.on('end', () => {
      const number = (attemptsOf.get(webhookId) ?? 0) + 1;
      attemptsOf.set(webhookId, number);
      if (mood === 'healthy') {
        // Healthy is 2xx, with whatever body the receiver likes: some answer bytes that are not text.
        const binary = drawFor('healthy', webhookId) < 0.2;
        attempt.answer = binary ? '200 binary' : '204';
        return void (binary ? res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(BINARY) : res.writeHead(204).end());
      }
      const draw = drawFor(webhookId, number);
      const [, status, body] = ANSWERS.find(([upTo]) => draw < upTo)!;
      attempt.answer = status === 0 ? 'hang' : `${status}${body === BINARY ? ' binary' : ''}`;
      if (status === 0) return;
      res.writeHead(status, status === 503 ? { 'retry-after': '1' } : body === BINARY ? { 'content-type': 'application/octet-stream' } : {}).end(body);
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

/** A delivery's attempts as stored (times in ms since the first), for a failure message. */
async function attemptLog(schema: string, id: string): Promise<unknown[]> {
  const statement = `SELECT at, duration_ms, status_code, error, interrupted FROM ${pg.escapeIdentifier(schema)}.webhook_attempts WHERE delivery_id = $1 ORDER BY attempt`;
  return withClient(async (client) => (await client.query(statement, [id])).rows);
}

/** A few messages still pending in lines that are not stuck (due or in flight first), each with what the receiver answered and what was stored, for a failure message. */
async function stillPending(schema: string, attempts: readonly Attempt[]): Promise<unknown[]> {
  const deliveries = `${pg.escapeIdentifier(schema)}.webhook_deliveries`;
  const rows = await withClient(
    async (client) =>
      (
        await client.query<{ id: string }>(
          `SELECT id FROM ${deliveries} AS h WHERE status = 'pending' AND (next_attempt_at IS NOT NULL OR EXISTS (
             SELECT FROM ${deliveries} AS d WHERE d.status = 'pending' AND d.endpoint_id = h.endpoint_id AND d.ordering_key = h.ordering_key
               AND d.next_attempt_at IS NOT NULL)) ORDER BY next_attempt_at IS NULL, seq`,
        )
      ).rows,
  );
  const shown = [];
  for (const { id } of rows.slice(0, 3)) {
    const answers = attempts.filter((attempt) => attempt.webhookId === id).map((attempt) => attempt.answer);
    shown.push({ id, answers, stored: await attemptLog(schema, id) });
  }
  return rows.length > 3 ? [...shown, `and ${rows.length - 3} more`] : shown;
}

/** The first few stuck lines, each with its messages (status, due time, place) and its endpoint's state, for the failure message. */
async function history(schema: string, stuck: readonly { endpointId: string; orderingKey?: string }[]): Promise<unknown[]> {
  const tables = { deliveries: `${pg.escapeIdentifier(schema)}.webhook_deliveries`, endpoints: `${pg.escapeIdentifier(schema)}.webhook_endpoints` };
  return withClient(async (client) => {
    const lines: unknown[] = [];
    for (const line of stuck.slice(0, 3)) {
      const messages = await client.query(
        `SELECT id, event_type, status, next_attempt_at, line_seq, seq, created_at, updated_at, attempt_count, lease_owner
         FROM ${tables.deliveries} WHERE endpoint_id = $1 AND ordering_key IS NOT DISTINCT FROM $2 ORDER BY seq`,
        [line.endpointId, line.orderingKey ?? null],
      );
      const endpoint = await client.query(`SELECT status, ordering, updated_at FROM ${tables.endpoints} WHERE id = $1`, [line.endpointId]);
      lines.push({ line, endpoint: endpoint.rows[0] ?? 'deleted', messages: messages.rows });
    }
    return stuck.length > 3 ? [...lines, `and ${stuck.length - 3} more stuck lines`] : lines;
  });
}

describe.skipIf(!postgresAvailable)('delivery lines under a seeded random schedule on PostgreSQL', () => {
  const schemas = testSchemas();
  const running: CliProcess[] = [];
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
      if (error instanceof Error) error.message = `${REPLAY}: ${error.message}`;
      throw error;
    }
  });

  async function chaos(): Promise<void> {
    // One stream per actor, so each actor's draws follow from the seed however the actors interleave.
    const stream = (actor: number) => generator((SEED + Math.imul(actor, 0x9e3779b9)) >>> 0);
    const pick = <T>(random: () => number, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    const routing = stream(1);
    const hooks = (receiver = await startChaosReceiver());
    const schema = schemas.next();
    const storageArgs = ['--storage', 'postgres', '--db-schema', schema];
    const env = { PLANT_STORE_DATABASE_URL: TEST_DATABASE_URL };
    const serve = async (): Promise<ServeProcess> => {
      const args = ['--port', '0', '--tokens', `${TOKEN}=acme`, '--log-level', 'error', ...storageArgs, '--webhook-timeout', '1s', '--webhook-retry', RETRY];
      const cli = spawnCli(['serve', ...args], { env: { ...env, PLANT_STORE_WEBHOOK_ALLOW_PRIVATE: 'true', PLANT_STORE_PORTAL: 'off' } });
      running.push(cli);
      // A replacement starts while the others work: more time than an idle start needs.
      const ready = await cli.waitForStdout(READY_LINE, 40_000);
      return { ...cli, url: ready[1]!, storage: ready[2]! };
    };
    const instances = [await serve(), await serve()];
    /** A request to a random live instance; `undefined` when it was lost with its instance. */
    const call = async (method: string, path: string, body?: unknown): Promise<Response | undefined> => {
      try {
        return await fetch(`${pick(routing, instances).url}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
      } catch {
        return undefined;
      }
    };

    const setup = stream(2);
    let endpointNumber = 0;
    const endpoints = new Set<string>();
    const createEndpoint = async (random: () => number) => {
      const ordering = random() < 0.75 ? 'plant' : 'none';
      const url = hooks.url(`/e${endpointNumber++}`);
      const created = await call('POST', '/webhooks/endpoints', { url, eventTypes: ['plant.created', 'plant.deleted'], ordering });
      if (created?.status === 201) endpoints.add(((await created.json()) as { id: string }).id);
    };
    for (let i = 0; i < 3; i++) await createEndpoint(setup);
    expect(endpoints.size).toBe(3);

    const started = Date.now();
    const deadline = started + CHAOS_MS;
    const busyPlants = new Set<number>();
    const resent = new Set<string>();
    /** What the operators did to endpoints and deliveries, and when (for failure messages). */
    const operations: { readonly at: number; readonly what: string }[] = [];
    const note = (what: string) => operations.push({ at: Date.now(), what });

    /** Creates or deletes plants, one write at a time per plant, so a plant's messages are queued in the order of its writes. */
    const writer = async (random: () => number) => {
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
          // A write lost with its instance may still commit until that instance is gone: the plant stays busy until then.
          if (written === undefined) await victimGone;
        } finally {
          busyPlants.delete(id);
        }
        await sleep(random() * 20);
      }
    };

    const endpointOperator = async (random: () => number) => {
      while (Date.now() < deadline) {
        await sleep(150 + random() * 400);
        const id = pick(random, [...endpoints]);
        const draw = random();
        const patch = draw < 0.3 ? { status: 'disabled' } : draw < 0.6 ? { status: 'enabled' } : { ordering: random() < 0.5 ? 'plant' : 'none' };
        note(`${id} ${draw < 0.85 ? JSON.stringify(patch) : 'delete'}`);
        if (draw < 0.85) await call('PATCH', `/webhooks/endpoints/${id}`, patch);
        else {
          const deleted = await call('DELETE', `/webhooks/endpoints/${id}`);
          if (deleted?.status === 204) endpoints.delete(id);
          await createEndpoint(random);
        }
      }
    };

    const deliveryOperator = async (random: () => number) => {
      while (Date.now() < deadline) {
        await sleep(200 + random() * 500);
        if (random() < 0.6) {
          const listed = await call('GET', '/webhooks/deliveries?limit=50');
          if (listed?.status !== 200) continue;
          const deliveries = (await listed.json()) as { id: string }[];
          if (deliveries.length === 0) continue;
          const { id } = pick(random, deliveries);
          // Noted before it is sent: a resend whose answer was lost may still have happened.
          resent.add(id);
          note(`resend ${id}`);
          await call('POST', `/webhooks/deliveries/${id}/resend`);
        } else {
          const id = pick(random, [...endpoints]);
          note(`${id} recover`);
          await call('POST', `/webhooks/endpoints/${id}/recover`, { since: new Date(started).toISOString() });
        }
      }
    };

    /** SIGKILLs one instance part-way through (attempts in flight and all) and starts another. */
    let victimGone = Promise.resolve();
    const killer = async (random: () => number) => {
      await sleep(CHAOS_MS * (0.3 + random() * 0.3));
      const victim = instances.splice(Math.floor(random() * instances.length), 1)[0]!;
      victimGone = victim.stop('SIGKILL').then(() => sleep(500));
      await victimGone;
      instances.push(await serve());
    };

    await Promise.all([writer(stream(3)), writer(stream(4)), writer(stream(5)), endpointOperator(stream(6)), deliveryOperator(stream(7)), killer(stream(8))]);

    // Healthy from now on: what is pending must drain (a killed instance's leases end after the timeout + 10 s).
    hooks.heal();
    const pending = async () =>
      withClient(async (client) => {
        const { rows } = await client.query<{ count: string }>(
          `SELECT count(*) AS count FROM ${pg.escapeIdentifier(schema)}.webhook_deliveries WHERE status = 'pending'`,
        );
        return Number(rows[0]!.count);
      });
    // Until every message not in a stuck line has ended (nothing writes any more, so a stuck line stays stuck).
    const check = (...args: string[]) => runCliInProcess(['webhooks', 'check', '--json', ...args, ...storageArgs], env);
    let stuck: { endpointId: string; orderingKey?: string; waiting: number }[] = [];
    const drainedBut = async (timeout: number) => {
      await vi
        .waitFor(
          async () => {
            const checked = await check();
            expect(checked.stderr, 'webhooks check').toBe('');
            stuck = JSON.parse(checked.stdout) as typeof stuck;
            expect(await pending()).toBe(stuck.reduce((sum, line) => sum + line.waiting, 0));
          },
          { timeout, interval: 500 },
        )
        .catch(() => undefined);
      return (await pending()) - stuck.reduce((sum, line) => sum + line.waiting, 0);
    };
    const undrained = await drainedBut(25_000);
    // The invariant `plant-store webhooks check` checks: no pending message lacks a way to become due. Soft: every invariant is reported.
    expect.soft(stuck.length === 0 ? [] : await history(schema, stuck), `${REPLAY}: stuck lines (messages that can never become due)`).toEqual([]);
    expect.soft(undrained === 0 ? [] : await stillPending(schema, hooks.attempts), `${REPLAY}: messages still pending outside stuck lines`).toEqual([]);
    if (stuck.length > 0) {
      // The repair, beside the running instances, lets every stuck line drain too.
      expect((await check('--repair')).status).toBe(1);
      expect.soft(await drainedBut(10_000), `${REPLAY}: messages still pending after webhooks check --repair`).toBe(0);
      expect.soft(stuck, `${REPLAY}: stuck lines after webhooks check --repair`).toEqual([]);
    }

    expect.soft(hooks.concurrentDuplicates(), `${REPLAY}: attempts of one message in flight at once`).toBe(0);

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
      // Two messages of one line are never in flight at once: each attempt starts after every other message's earlier attempts ended.
      const overlapping: unknown[] = [];
      let latest: Attempt | undefined;
      for (const attempt of messages.flatMap((message) => attemptsOf.get(message.id) ?? []).sort((a, b) => a.start - b.start)) {
        if (latest && latest.webhookId !== attempt.webhookId && attempt.start < latest.end) {
          const meanwhile = operations.filter(
            ({ at, what }) =>
              at >= latest!.start - 2_000 &&
              at <= attempt.start &&
              [line.split(' ')[0]!, latest!.webhookId, attempt.webhookId].some((name) => what.includes(name)),
          );
          overlapping.push({
            during: { ...latest, stored: await attemptLog(schema, latest.webhookId) },
            started: { ...attempt, stored: await attemptLog(schema, attempt.webhookId) },
            meanwhile,
          });
        }
        if (!latest || attempt.end > latest.end) latest = attempt;
      }
      expect.soft(overlapping, `${REPLAY}: ${line}: attempts of two of its messages overlapped`).toEqual([]);
      // First attempts in queue order, among the messages queued once: never resent nor failed (a resend or recovery queues at the back).
      const firsts = messages
        .filter((message) => !resent.has(message.id) && !everFailed.has(message.id))
        .flatMap((message) => attemptsOf.get(message.id)?.slice(0, 1) ?? []);
      const outOfOrder = firsts.filter((attempt, index) => index > 0 && attempt.start < firsts[index - 1]!.start);
      expect
        .soft(
          outOfOrder.map((attempt) => attempt.webhookId),
          `${REPLAY}: ${line}: first attempted out of queue order`,
        )
        .toEqual([]);
      if (firsts.length > 1) checkedLines++;
    }
    // The schedule did exercise lines (a guard against a run that checked nothing).
    expect(checkedLines, `${REPLAY}: lines checked for order`).toBeGreaterThan(0);
  }
});
