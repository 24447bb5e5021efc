import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * Where the PostgreSQL suites find their database, and what they do without
 * one. One place decides for every suite: with `CI=true` an unreachable
 * PostgreSQL fails the run (importing this module throws); elsewhere the
 * suites skip, and this module prints one line naming the variable.
 */

const VARIABLE = 'PLANT_STORE_TEST_DATABASE_URL';

/** The test database's connection string. */
export const TEST_DATABASE_URL = process.env[VARIABLE] || 'postgres://postgres@127.0.0.1:5432/test';

/** Whether PostgreSQL answered; suites use `describe.skipIf(!postgresAvailable)`. */
export const postgresAvailable = await answers(TEST_DATABASE_URL);

if (!postgresAvailable) {
  const where = `${redacted(TEST_DATABASE_URL)} (set ${VARIABLE} to point elsewhere)`;
  if (process.env.CI === 'true') throw new Error(`PostgreSQL is unreachable at ${where}; with CI=true the PostgreSQL suites must run`);
  console.warn(`PostgreSQL suites skipped: nothing answers at ${where}`);
}

async function answers(connectionString: string): Promise<boolean> {
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: 3000 });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

function redacted(connectionString: string): string {
  try {
    const url = new URL(connectionString);
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return `the ${VARIABLE} value`;
  }
}

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
