import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { startServe } from '../support/cli-process.js';
import { eventually } from '../support/eventually.js';
import { postgresAvailable, TEST_DATABASE_URL, testSchemas, withClient } from '../support/postgres.js';

// A database that stalls longer than the server's request timeout (1 s here) while keep-alive clients wait on writes:
// each answer must still arrive, and each connection must stay usable for the client's next request (or say it closes).

const TOKEN = 'slow-answer-token';
const CLIENTS = 6;
const SHORT_TIMEOUTS = ['--headers-timeout', '1s', '--request-timeout', '1s'];
// Past the request timeout and node:http's once-a-second check of it.
const STALL_MS = 2_500;
const BetterSqlite3 = createRequire(new URL('../../packages/storage-sqlite/package.json', import.meta.url))('better-sqlite3') as new (
  path: string,
) => { exec(sql: string): void; close(): void };

interface Answer {
  readonly status?: number;
  readonly error?: string;
  readonly reusedSocket: boolean;
  readonly closes: boolean;
}

/** POSTs a plant over `agent`; a failure is an answer too, so every client's outcome shows in the assertion. */
function createPlant(url: string, agent: Agent, id: number): Promise<Answer> {
  return new Promise((resolve) => {
    const req = request(
      `${url}/plants`,
      { method: 'POST', agent, headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' } },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode, reusedSocket: req.reusedSocket, closes: res.headers.connection === 'close' }));
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message, reusedSocket: req.reusedSocket, closes: true }));
    req.end(JSON.stringify({ id, name: `plant ${id}` }));
  });
}

/** Makes the database stall for the writes sent next; resolves with what ends the stall once it has lasted long enough. */
type Stall = () => Promise<() => Promise<void>>;

/** One write per client while `stall` holds the database, then each client's next write on the same connection. */
async function writeThroughStall(url: string, stall: Stall): Promise<void> {
  // One connection per client, kept alive: a reused socket is the same connection.
  const agents = Array.from({ length: CLIENTS }, () => new Agent({ keepAlive: true, maxSockets: 1 }));
  try {
    const round = (first: number) => Promise.all(agents.map((agent, k) => createPlant(url, agent, first + k)));
    expect(await round(1)).toEqual(agents.map(() => ({ status: 200, reusedSocket: false, closes: false })));
    const end = await stall();
    const slow = round(101);
    await end();
    const slowAnswers = await slow;
    expect(slowAnswers).toEqual(agents.map(() => expect.objectContaining({ status: 200, reusedSocket: true })));
    const next = await round(201);
    // A connection the slow answer said it closes is replaced; any other must carry the next request.
    expect(next).toEqual(slowAnswers.map(({ closes }) => expect.objectContaining({ status: 200, reusedSocket: !closes })));
    const stored = await fetch(`${url}/plants`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(((await stored.json()) as unknown[]).length).toBe(3 * CLIENTS);
  } finally {
    for (const agent of agents) agent.destroy();
  }
}

describe.skipIf(!postgresAvailable)('slow answers on keep-alive connections, PostgreSQL', () => {
  const schemas = testSchemas();
  afterAll(() => schemas.dropAll());

  it('answers writes held up by a table lock and keeps each connection usable', async () => {
    const schema = schemas.next();
    const service = await startServe(
      ['--port', '0', '--tokens', `${TOKEN}=acme`, '--storage', 'postgres', '--db-schema', schema, '--portal', 'off', ...SHORT_TIMEOUTS],
      {
        env: { PLANT_STORE_DATABASE_URL: TEST_DATABASE_URL },
      },
    );
    try {
      const plants = `${pg.escapeIdentifier(schema)}.plants`;
      await withClient((locker) =>
        writeThroughStall(service.url, async () => {
          await locker.query('BEGIN');
          await locker.query(`LOCK TABLE ${plants} IN ACCESS EXCLUSIVE MODE`);
          return async () => {
            // The stall counts from when every write waits on the lock.
            const waiting = `SELECT count(*)::int AS n FROM pg_locks WHERE relation = '${plants}'::regclass AND NOT granted`;
            await eventually(async () => (await locker.query<{ n: number }>(waiting)).rows[0]!.n >= CLIENTS, 'every write to wait on the lock');
            await sleep(STALL_MS);
            await locker.query('COMMIT');
          };
        }),
      );
    } finally {
      await service.stop();
    }
  });
});

describe('slow answers on keep-alive connections, SQLite', () => {
  it('answers writes held up by a write transaction of another connection and keeps each connection usable', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'plant-store-slow-answer-'));
    const path = join(folder, 'plants.db');
    // SQLite waits for a lock inside the event loop, which holds the server's timers too: the same promise, kept either way.
    const service = await startServe(['--port', '0', '--tokens', `${TOKEN}=acme`, '--storage', 'sqlite', '--db', path, '--portal', 'off', ...SHORT_TIMEOUTS]);
    const database = new BetterSqlite3(path);
    try {
      await writeThroughStall(service.url, async () => {
        database.exec('BEGIN IMMEDIATE');
        return async () => {
          await sleep(STALL_MS);
          database.exec('COMMIT');
        };
      });
    } finally {
      database.close();
      await service.stop();
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('answers 503 once a lock outlasts the storage wait (5 s), on a connection that stays usable', { timeout: 30_000 }, async () => {
    const folder = mkdtempSync(join(tmpdir(), 'plant-store-slow-answer-'));
    const path = join(folder, 'plants.db');
    const service = await startServe(['--port', '0', '--tokens', `${TOKEN}=acme`, '--storage', 'sqlite', '--db', path, '--portal', 'off', ...SHORT_TIMEOUTS]);
    const database = new BetterSqlite3(path);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      expect(await createPlant(service.url, agent, 1)).toEqual({ status: 200, reusedSocket: false, closes: false });
      database.exec('BEGIN IMMEDIATE');
      const held = createPlant(service.url, agent, 2);
      await sleep(6_500);
      database.exec('COMMIT');
      const answer = await held;
      expect(answer).toEqual(expect.objectContaining({ status: 503, reusedSocket: true }));
      expect(await createPlant(service.url, agent, 3)).toEqual(expect.objectContaining({ status: 200, reusedSocket: !answer.closes }));
    } finally {
      agent.destroy();
      database.close();
      await service.stop();
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
