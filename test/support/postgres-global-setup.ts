import pg from 'pg';
import type { TestProject } from 'vitest/node';

/** The variable naming the test database. */
export const TEST_DATABASE_VARIABLE = 'PLANT_STORE_TEST_DATABASE_URL';

/** The test database's connection string. */
export const TEST_DATABASE_URL = process.env[TEST_DATABASE_VARIABLE] || 'postgres://postgres@127.0.0.1:5432/test';

declare module 'vitest' {
  export interface ProvidedContext {
    /** PostgreSQL answered at PLANT_STORE_TEST_DATABASE_URL when the run started. */
    postgresAvailable: boolean;
  }
}

/**
 * Vitest global setup: asks PostgreSQL once per run whether it answers, so
 * every PostgreSQL suite decides the same way and the run says so in one
 * line. With `CI=true` an unreachable PostgreSQL fails the run.
 */
export default async function setup(project: TestProject): Promise<void> {
  const available = await answers(TEST_DATABASE_URL);
  if (!available) {
    const where = `${redacted(TEST_DATABASE_URL)} (set ${TEST_DATABASE_VARIABLE} to point elsewhere)`;
    if (process.env.CI === 'true') throw new Error(`PostgreSQL is unreachable at ${where}; with CI=true the PostgreSQL suites must run`);
    console.warn(`PostgreSQL suites skipped: nothing answers at ${where}`);
  }
  project.provide('postgresAvailable', available);
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
    return `the ${TEST_DATABASE_VARIABLE} value`;
  }
}
