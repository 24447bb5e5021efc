import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { TEST_DATABASE_URL } from './postgres-global-setup.js';

/*
 * Shared by every PostgreSQL suite: the database (PLANT_STORE_TEST_DATABASE_URL),
 * whether it answered, schemas of their own per run, and a plain client.
 * Whether PostgreSQL answers is decided once per run, in
 * postgres-global-setup.ts: with CI=true an unreachable PostgreSQL fails the
 * run there; elsewhere the suites skip, after one line naming the variable.
 */

export { TEST_DATABASE_URL };

/** Whether PostgreSQL answered; suites use `describe.skipIf(!postgresAvailable)`. */
export const postgresAvailable = inject('postgresAvailable');

/**
 * Schemas for one test run: each name is new (random run prefix, counter),
 * and `dropAll()` drops every schema handed out. Call it in `afterAll`.
 */
export function testSchemas() {
  const run = `plant_store_test_${randomBytes(4).toString('hex')}`;
  const names: string[] = [];
  return {
    /** A schema name nobody has used; the storage creates it. */
    next(): string {
      const name = `${run}_${names.length}`;
      names.push(name);
      return name;
    },
    async dropAll(): Promise<void> {
      if (names.length === 0) return;
      await withClient((client) =>
        client.query(names.map((name) => `DROP SCHEMA IF EXISTS ${pg.escapeIdentifier(name)} CASCADE`).join('; ')),
      );
      names.length = 0;
    },
  };
}

/** Runs `use` on a plain pg client of the test database (outside any storage), then closes it. */
export async function withClient<T>(use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  client.on('error', () => {});
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}
