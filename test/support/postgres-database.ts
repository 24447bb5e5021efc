import { randomBytes } from 'node:crypto';
import pg from 'pg';

// The PostgreSQL helpers of the suites and the benchmark (no vitest in here:
// bench imports it; suites use postgres.ts, which adds whether it answered).

/** The variable naming the test database. */
export const TEST_DATABASE_VARIABLE = 'PLANT_STORE_TEST_DATABASE_URL';

/** Where the suites and the benchmark look for PostgreSQL unless told otherwise. */
export const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';

/** The test database's connection string. */
export const TEST_DATABASE_URL = process.env[TEST_DATABASE_VARIABLE] || DEFAULT_DATABASE_URL;

/** The connection string without its password, for messages. */
export function redactedUrl(databaseUrl: string): string {
  try {
    const url = new URL(databaseUrl);
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return '(unparsable URL)';
  }
}

/**
 * A connected client that answered `SELECT 1` within 3 s, or why not (the
 * caller skips or fails). Errors after connecting are ignored: the caller
 * sees them on its queries.
 */
export async function connectClient(connectionString: string, applicationName?: string): Promise<{ client: pg.Client } | { unreachable: string }> {
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: 3000, ...(applicationName ? { application_name: applicationName } : {}) });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('SELECT 1');
    return { client };
  } catch (error) {
    await client.end().catch(() => {});
    return { unreachable: `${redactedUrl(connectionString)}: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/** `DROP SCHEMA IF EXISTS … CASCADE` for each name, as one statement text. */
export function dropSchemasStatement(names: Iterable<string>): string {
  return [...names].map((name) => `DROP SCHEMA IF EXISTS ${pg.escapeIdentifier(name)} CASCADE`).join('; ');
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
      await withClient((client) => client.query(dropSchemasStatement(names)));
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
