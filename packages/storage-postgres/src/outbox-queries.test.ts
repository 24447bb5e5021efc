import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { postgresAvailable, withClient } from '../../../test/support/postgres.js';
import { explainedPlan, seededSchema } from '../../../test/support/postgres-plan.js';
import { releaseNextSql } from './delivery-lines.js';
import { claimDuePassingOverSql, claimDueSql, enqueueSql, listDeliveriesSql, nextDueAtSql, waitingSinceSql } from './outbox-queries.js';

// Plan nodes that read rows: sequential, index, index-only and bitmap heap scans (CTE and worktable scans too, which are cheap).
const SCANS = /Scan$/;

const T0 = 1_700_000_000_000;
const BACKLOG = 100_000;

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

/** Runs `text` (rolled back, after `before`) and returns what its plan read: rows out of and filtered away in every scan. */
const rowsRead = (text: string, parameters: unknown[], before?: (client: pg.Client) => Promise<unknown>) =>
  rolledBack(async (client) =>
    (await before?.(client), await explainedPlan(client, 'ANALYZE, FORMAT JSON', text, parameters))
      .filter((step) => SCANS.test(step['Node Type']))
      .reduce(
        (sum, step) =>
          sum +
          ((step['Actual Rows'] ?? 0) + (step['Rows Removed by Filter'] ?? 0) + (step['Rows Removed by Index Recheck'] ?? 0)) * (step['Actual Loops'] ?? 1),
        0,
      ),
  );

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

// One plant's line as long as a backlog: its first message due, every other one held (no due time). Claims, the
// release of the next one and a message joining the line must read a handful of rows, however long the line.
describe.skipIf(!postgresAvailable)('outbox SQL with one plant holding a long line of messages', () => {
  const { tables } = seededSchema(async (client, tables) => {
    await client.query(`
      INSERT INTO ${tables.deliveries}
        (id, tenant, endpoint_id, event_type, payload, status, next_attempt_at, created_at, updated_at, ordering_key, line_seq)
      SELECT 'line' || i, 't', 'ep_line', 'plant.created', '{}', 'pending', CASE WHEN i = 1 THEN ${T0} END, ${T0} + i, ${T0} + i, '1', i
      FROM generate_series(1, ${BACKLOG}) AS i`);
    await client.query(`
      INSERT INTO ${tables.deliveries} (id, tenant, endpoint_id, event_type, payload, status, next_attempt_at, created_at, updated_at, ordering_key, line_seq)
      SELECT 'other' || i, 't', 'ep_line', 'plant.created', '{}', 'pending', ${T0} + i, ${T0} + i, ${T0} + i, (i + 1)::text, 1
      FROM generate_series(1, 9) AS i`);
    // Two writes that each found plant 99's line empty (a delete and a create at the same moment): both due, one place.
    await client.query(`
      INSERT INTO ${tables.deliveries} (id, tenant, endpoint_id, event_type, payload, status, next_attempt_at, created_at, updated_at, ordering_key, line_seq)
      VALUES ('race1', 't', 'ep_line', 'plant.deleted', '{}', 'pending', ${T0}, ${T0}, ${T0}, '99', 1),
             ('race2', 't', 'ep_line', 'plant.created', '{}', 'pending', ${T0}, ${T0}, ${T0}, '99', 1)`);
    await client.query(`ANALYZE ${tables.deliveries}`);
  });

  it('claims the head of the long line and the other plants, reading the due index only', async () => {
    const now = T0 + 1000;
    const claimed = await rolledBack(async (client) =>
      (await client.query(claimDueSql(tables), ['o', now + 1000, now, 20])).rows.map((row: { id: string }) => row.id),
    );
    // Of plant 99's two due messages only the one queued first: the second waits for it to end.
    expect(claimed.sort()).toEqual(['line1', 'race1', ...Array.from({ length: 9 }, (_, index) => `other${index + 1}`)].sort());
    expect(await rowsRead(claimDueSql(tables), ['o', now + 1000, now, 20])).toBeLessThan(200);
  });

  it('finds the next due time and the deliveries waiting for a slot reading the front of each line only', async () => {
    expect(await rowsRead(nextDueAtSql(tables), [])).toBeLessThan(100);
    expect(await rowsRead(waitingSinceSql(tables), [T0 + 1000])).toBeLessThan(200);
  });

  it('releases the next of the line, and queues behind its last, by seeks in the line index', async () => {
    const headDelivered = (client: pg.Client) =>
      client.query(`UPDATE ${tables.deliveries} SET status = 'delivered', next_attempt_at = NULL WHERE id = 'line1'`);
    const release = `${releaseNextSql(tables)} RETURNING d.id`;
    const ended = [['ep_line'], ['1'], [T0 + 5]];
    expect(await rolledBack(async (client) => (await headDelivered(client), (await client.query(release, ended)).rows))).toEqual([{ id: 'line2' }]);
    expect(await rowsRead(releaseNextSql(tables), ended, headDelivered)).toBeLessThan(100);
    const joining = ['msg_new', 't', 'ep_line', 'plant.deleted', '{}', T0 + 10, false, '1'];
    expect(await rowsRead(enqueueSql(tables), joining)).toBeLessThan(100);
  });

  it('lists the held messages of the long line with the one each waits for, by a seek in the line index each', async () => {
    // Parameters: tenant, endpoint, status, cursor (2), limit, event type, since, until.
    const listing = [null, 'ep_line', 'pending', null, null, 20, null, null, null];
    const page = await withClient(async (client) => (await client.query(listDeliveriesSql(tables), listing)).rows);
    expect(page.map((row: { id: string; waiting_behind: string | null }) => [row.id, row.waiting_behind])).toEqual(
      Array.from({ length: 20 }, (_, index) => [`line${BACKLOG - index}`, `line${BACKLOG - index - 1}`]),
    );
    // The page, its attempts and a seek for each held message's predecessor: dozens of rows, not the line behind them.
    expect(await rowsRead(listDeliveriesSql(tables), listing)).toBeLessThan(200);
  });
});
