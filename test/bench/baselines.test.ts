import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresStorage } from '@plant-store/storage-postgres';
import { compileBaselines } from '../../bench/lib/compile-baselines.js';
import { createServerLauncher, type Contestant, type ServerConfig } from '../../bench/lib/server-launcher.js';
import { startServer } from '../../bench/lib/server-process.js';
import { postgresAvailable, TEST_DATABASE_URL, testSchemas } from '../support/postgres.js';

// The baselines are scripts the bench runs, not part of the service, and
// the PostgreSQL one writes to the adapter's tables: when a migration adds a
// required column, it answers every create with a 503 and the bench's
// PostgreSQL comparisons fail. Each baseline is started here as the bench
// starts it and answers the requests of its scenarios.

const root = join(import.meta.dirname, '../..');
const work = mkdtempSync(join(tmpdir(), 'plant-store-baselines-'));
const schemas = testSchemas();
beforeAll(() => compileBaselines(join(root, 'bench/baselines'), join(work, 'baselines')));
afterAll(async () => {
  await schemas.dropAll();
  rmSync(work, { recursive: true, force: true });
});

const launcher = () => createServerLauncher({ repoRoot: root, serviceFrom: 'source', baselineDir: join(work, 'baselines') });
const tokens = { 'bench-token': 'bench-tenant' };
// A receiver nobody answers at: deliveries are only queued.
const webhooks = [{ url: 'http://127.0.0.1:9/hooks', secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' }];

type Answer = [method: string, path: string, status: number, body: string];

/** Creates, reads, lists and deletes a plant on the contestant, as the bench's scenarios do; the statuses and bodies it got. */
async function exercise(contestant: Contestant, config: ServerConfig): Promise<Answer[]> {
  const server = await startServer(launcher().spec(contestant, config));
  try {
    const call = async (method: string, path: string, body?: string): Promise<Answer> => {
      const response = await fetch(`${server.url}${path}`, {
        method,
        headers: { authorization: 'Bearer bench-token', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body,
      });
      return [method, path, response.status, await response.text()];
    };
    return [
      await call('POST', '/plants', '{"id":999999999999999,"name":"Fern","tag":"green"}'),
      await call('POST', '/plants', '{"id":2,"name":"Moss"}'),
      await call('POST', '/plants', '{"id":2,"name":"Moss"}'), // a retry: the same answer
      await call('GET', '/plants/999999999999999'),
      await call('GET', '/plants?limit=1'),
      await call('DELETE', '/plants/2'),
      await call('DELETE', '/plants/2'),
    ];
  } finally {
    await server.stop();
  }
}

/** What every baseline answers (error bodies aside: only their status is compared). */
function expectAnswers(answers: Answer[]): void {
  expect(answers.map((answer) => answer.slice(0, 3))).toEqual([
    ['POST', '/plants', 200],
    ['POST', '/plants', 200],
    ['POST', '/plants', 200],
    ['GET', '/plants/999999999999999', 200],
    ['GET', '/plants?limit=1', 200],
    ['DELETE', '/plants/2', 204],
    ['DELETE', '/plants/2', 404],
  ]);
  // As text: the largest id every baseline takes (below 10^15) comes back exact.
  expect(answers[3]![3]).toBe('{"id":999999999999999,"name":"Fern","tag":"green"}');
}

describe('bench baselines', () => {
  for (const storage of ['sqlite', 'memory'] as const) {
    it(`the baseline on ${storage} answers the scenarios' requests`, async () => {
      const config: ServerConfig = { storage, dbFile: join(work, `${storage}.db`), logging: false, tokens, webhooks };
      expectAnswers(await exercise('baseline', config));
    });
  }

  it.skipIf(!postgresAvailable)("the baseline on PostgreSQL writes to the adapter's tables and answers the scenarios' requests", async () => {
    const schema = schemas.next();
    // Migrated by the adapter, as the bench's schemas are.
    await (await postgresStorage({ connectionString: TEST_DATABASE_URL, schema, poolSize: 1 })).close();
    const config: ServerConfig = { storage: 'postgres', postgres: { databaseUrl: TEST_DATABASE_URL, schema, pool: 2 }, logging: false, tokens, webhooks };
    expectAnswers(await exercise('baseline', config));
  });
});
