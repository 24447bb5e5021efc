import type { TestProject } from 'vitest/node';
import { connectClient, TEST_DATABASE_URL, TEST_DATABASE_VARIABLE } from './postgres-database.js';

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
  const connected = await connectClient(TEST_DATABASE_URL);
  if ('client' in connected) await connected.client.end().catch(() => {});
  else {
    const where = `${connected.unreachable} (set ${TEST_DATABASE_VARIABLE} to point elsewhere)`;
    if (process.env.CI === 'true') throw new Error(`PostgreSQL is unreachable at ${where}; with CI=true the PostgreSQL suites must run`);
    console.warn(`PostgreSQL suites skipped: nothing answers at ${where}`);
  }
  project.provide('postgresAvailable', 'client' in connected);
}
