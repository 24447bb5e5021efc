import { inject } from 'vitest';

/*
 * Shared by every PostgreSQL suite: the database (PLANT_STORE_TEST_DATABASE_URL),
 * whether it answered, schemas of their own per run, and a plain client.
 * Whether PostgreSQL answers is decided once per run, in
 * postgres-global-setup.ts: with CI=true an unreachable PostgreSQL fails the
 * run there; elsewhere the suites skip, after one line naming the variable.
 */

export { TEST_DATABASE_URL, testSchemas, withClient } from './postgres-database.js';

/** Whether PostgreSQL answered; suites use `describe.skipIf(!postgresAvailable)`. */
export const postgresAvailable = inject('postgresAvailable');
