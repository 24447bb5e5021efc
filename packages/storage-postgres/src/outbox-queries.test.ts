import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { postgresAvailable, withClient } from '../../../test/support/postgres.js';
import { explainedPlan, seededSchema } from '../../../test/support/postgres-plan.js';
import { claimDuePassingOverSql, nextDueAtSql } from './outbox-queries.js';

// Plan nodes that read rows: sequential, index, index-only and bitmap heap scans (CTE and worktable scans too, which are cheap).
const SCANS = /Scan$/;

const T0 = 1_700_000_000_000;
const BACKLOG = 100_000;

// The conformance suite holds what these statements answer; this holds how much they read for it, which no
// answer shows. One slow receiver with a large due backlog, one endpoint with a long finished history, and a few
// endpoints with a little work each: a claim that passes over the slow one, and a look for the next due time,
// must read about as many rows as they answer with, whatever the planner's statistics make of the skew.
describe.skipIf(!postgresAvailable)('outbox SQL with one endpoint holding most pending deliveries', () => {
  const { tables } = seededSchema(async (client, tables) => {
    const insert = (ids: string, endpoint: string, status: string, due: string, count: number) =>
      client.query(`
        INSERT INTO ${tables.deliveries} (id, tenant, endpoint_id, event_type, payload, status, next_attempt_at, created_at, updated_at)
        SELECT ${ids}, 't', ${endpoint}, 'plant.created', '{}', '${status}', ${due}, ${T0} + i, ${T0} + i
        FROM generate_series(1, ${count}) AS i`);
    await insert(`'slow' || i`, `'sub_slow'`, 'pending', `${T0} + i`, BACKLOG);
    await insert(`'old' || i`, `'sub_history'`, 'delivered', 'NULL', BACKLOG);
    await insert(`'other' || i`, `'sub_other' || (i % 2)`, 'pending', `${T0} + ${BACKLOG} + i`, 20);
    await client.query(`ANALYZE ${tables.deliveries}`);
  });

  /** Runs `use` in a transaction that is rolled back: a claim leases nothing for the next test. */
  const rolledBack = <T>(use: (client: pg.Client) => Promise<T>) =>
    withClient(async (client) => {
      await client.query('BEGIN');
      try {
        return await use(client);
      } finally {
        await client.query('ROLLBACK');
      }
    });

  /** Runs `text` (rolled back) and returns what its plan read: rows out of and filtered away in every scan. */
  const rowsRead = (text: string, parameters: unknown[]) =>
    rolledBack(async (client) =>
      (await explainedPlan(client, 'ANALYZE, FORMAT JSON', text, parameters))
        .filter((step) => SCANS.test(step['Node Type']))
        .reduce(
          (sum, step) =>
            sum +
            ((step['Actual Rows'] ?? 0) + (step['Rows Removed by Filter'] ?? 0) + (step['Rows Removed by Index Recheck'] ?? 0)) * (step['Actual Loops'] ?? 1),
          0,
        ),
    );

  it('claims past the slow endpoint reading each other endpoint from the endpoint_due index, not the backlog', async () => {
    const now = T0 + 2 * BACKLOG;
    const claimed = await rolledBack(async (client) => {
      const { rows } = await client.query(claimDuePassingOverSql(tables), ['o', now + 1000, now, 10, ['sub_slow']]);
      return rows.map((row: { id: string }) => row.id).sort();
    });
    expect(claimed).toEqual(['other1', 'other10', 'other2', 'other3', 'other4', 'other5', 'other6', 'other7', 'other8', 'other9']);
    // 4 endpoints found, up to 10 deliveries of each of 2 read, 10 leased: a few dozen rows, not 100,000.
    expect(await rowsRead(claimDuePassingOverSql(tables), ['o', now + 1000, now, 10, ['sub_slow']])).toBeLessThan(200);
  });

  it('finds the next due time at the head of the due index, not by reading every pending delivery', async () => {
    expect(await rowsRead(nextDueAtSql(tables), [])).toBeLessThan(100);
  });
});
