import { afterEach, describe, expect, it } from 'vitest';
import { StorageError } from '@plant-store/core';
import { createPool } from '../../packages/storage-postgres/src/postgres-connection.js';
import { QueryRunner } from '../../packages/storage-postgres/src/query-runner.js';
import { postgresAvailable, TEST_DATABASE_URL } from '../support/postgres.js';

// The query runner's handling of a failed call: a connection the server
// answered on is kept, one that may still have a reply in flight is dropped.
// Told apart by the backend process behind the one pooled connection.

describe.skipIf(!postgresAvailable)('QueryRunner on PostgreSQL', () => {
  const runners: QueryRunner[] = [];
  afterEach(async () => {
    await Promise.all(runners.splice(0).map((runner) => runner.close()));
  });
  const open = (deadlineMs: number) => {
    const runner = new QueryRunner(createPool({ connectionString: TEST_DATABASE_URL }, 1), deadlineMs);
    runners.push(runner);
    return runner;
  };
  const backend = async (runner: QueryRunner) => (await runner.rows<{ pid: number }>('read the backend', 'SELECT pg_backend_pid() AS pid', []))[0]!.pid;

  it('keeps the connection after an error the server answered with', async () => {
    const runner = open(5000);
    const before = await backend(runner);
    await expect(runner.rows('divide', 'SELECT 1 / 0', [])).rejects.toBeInstanceOf(StorageError);
    expect(await backend(runner)).toBe(before);
  });

  it('fails a call that gets no answer by the deadline, and drops its connection', async () => {
    const runner = open(200);
    const before = await backend(runner);
    const started = Date.now();
    const error = await runner.rows('sleep', 'SELECT pg_sleep(3)', []).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StorageError);
    expect(((error as StorageError).cause as Error).message).toBe('no answer from the database within 200 ms');
    expect(Date.now() - started).toBeLessThan(2000);
    expect(await backend(runner)).not.toBe(before);
  });
});
