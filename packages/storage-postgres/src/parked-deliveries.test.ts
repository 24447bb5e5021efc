import pg from 'pg';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigurationError, type EndpointOrdering } from '@plant-store/core';
import type { Storage } from '@plant-store/core/adapter';
import { samplePlant as plant } from '@plant-store/core/testing';
import { eventually } from '../../../test/support/eventually.js';
import { postgresAvailable, TEST_DATABASE_URL, testSchemas, withClient } from '../../../test/support/postgres.js';
import { explainedPlan, seededSchema } from '../../../test/support/postgres-plan.js';
import { shareEndpointSql } from './delivery-lines.js';
import { lockEndpointStatusSql } from './endpoint-queries.js';
import { inLineSinceSql, rejoinSql, rejoinUnlinedSinceSql } from './outbox-queries.js';
import { boundParkedSql, discardParkedSql } from './parked-deliveries.js';
import { postgresStorage } from './postgres-storage.js';
import { tablesIn, type Tables } from './tables.js';

const T0 = 1_700_000_000_000;

// Parked messages where several instances and transactions meet on one schema: what the conformance suite, one call at a
// time, cannot show.
describe.skipIf(!postgresAvailable)('postgres parked deliveries under concurrent writes', () => {
  const schemas = testSchemas();
  let schema = '';
  let tables: Tables;
  const opened: Storage[] = [];
  const clients: pg.Client[] = [];

  const open = async (parkedLimit?: number) => {
    const storage = await postgresStorage({ connectionString: TEST_DATABASE_URL, schema, ...(parkedLimit !== undefined && { parkedLimit }) });
    opened.push(storage);
    return storage;
  };
  /** A transaction of a host of its own, left open for the test to finish. */
  const hostTransaction = async () => {
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
    clients.push(client);
    await client.connect();
    await client.query('BEGIN');
    return client;
  };
  const endpoint = (storage: Storage, id: string, ordering: EndpointOrdering = 'none') =>
    storage.endpoints.create(
      {
        id,
        tenant: 'acme',
        url: `https://${id}.example/hook`,
        eventTypes: ['plant.created', 'plant.deleted'],
        ordering,
        secret: 'whsec_c2VjcmV0c2VjcmV0c2VjcmV0',
        createdAt: T0,
      },
      50,
    );
  const created = (id: bigint, at: number) => ({ eventType: 'plant.created' as const, payload: `{"id":${id}}`, createdAt: at });
  const deleted = (id: bigint, at: number) => ({ eventType: 'plant.deleted' as const, payload: `{"id":${id}}`, createdAt: at });
  const query = async <Row>(text: string, parameters: unknown[] = []) => (await withClient((client) => client.query(text, parameters))).rows as Row[];
  const parkedDropped = async (id: string) => (await opened[0]!.endpoints.find(id))?.endpoint.parkedDropped;
  /** Until a statement on this schema waits for a lock. */
  const someoneWaits = (count = 1) =>
    eventually(async () => {
      const [row] = await query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type IN ('Lock', 'advisory') AND strpos(query, $1) > 0`,
        [schema],
      );
      return row!.n >= count;
    }, `${count} statement(s) waiting for a lock`);

  beforeEach(() => {
    schema = schemas.next();
    tables = tablesIn(schema);
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.end().catch(() => {})));
    await Promise.all(opened.splice(0).map((storage) => storage.close()));
  });
  afterAll(() => schemas.dropAll());

  it('refuses a parkedLimit that is not a whole number of at least 0', async () => {
    for (const parkedLimit of [-1, 1.5, Number.NaN]) {
      await expect(postgresStorage({ connectionString: TEST_DATABASE_URL, schema, parkedLimit })).rejects.toBeInstanceOf(ConfigurationError);
    }
  });

  it('leaves no message parked on an endpoint enabled (with replay) on one instance while another writes, and replays none twice', async () => {
    const [writer, other] = [await open(), await open()];
    await endpoint(writer, 'ep_ordered', 'plant');
    await endpoint(writer, 'ep_plain');
    for (const id of ['ep_ordered', 'ep_plain']) await writer.endpoints.setStatus(id, 'disabled', 'off', T0);
    const PLANTS = 40;
    let at = T0;
    // Each plant created then deleted, by either instance, eight plants at a time; both endpoints enabled half-way through.
    const lifeOf = async (id: bigint) => {
      const storage = id % 2n === 0n ? writer : other;
      await storage.plants.create('acme', plant(id, `p${id}`), [], created(id, ++at));
      await storage.plants.delete('acme', id, deleted(id, ++at));
    };
    const lives: Promise<void>[] = [];
    for (let id = 1n; id <= PLANTS; id++) {
      lives.push(lifeOf(id));
      if (id === BigInt(PLANTS / 2)) {
        lives.push(other.endpoints.setStatus('ep_ordered', 'enabled', undefined, T0 + 1_000_000).then(() => {}));
        lives.push(writer.endpoints.update('acme', 'ep_plain', { status: 'enabled', updatedAt: T0 + 1_000_000 }).then(() => {}));
      }
      if (lives.length >= 8) await Promise.all(lives.splice(0));
    }
    await Promise.all(lives);

    const rows = await query<{ endpoint_id: string; event_type: string; payload: string; status: string; ordering_key: string | null }>(
      `SELECT endpoint_id, event_type, payload, status, ordering_key FROM ${tables.deliveries} ORDER BY endpoint_id, ordering_key, line_seq, seq`,
    );
    expect(rows.filter((row) => row.status !== 'pending')).toEqual([]);
    for (const id of ['ep_ordered', 'ep_plain']) {
      const events = rows.filter((row) => row.endpoint_id === id).map((row) => `${row.event_type} ${row.payload}`);
      // Every event once: none lost to a write that parked after the replay read, none replayed twice.
      expect(events).toHaveLength(2 * PLANTS);
      expect(new Set(events).size).toBe(2 * PLANTS);
    }
    // Each plant's line holds its created message, then its deleted one, with one of them due.
    const lines = new Map<string | null, typeof rows>();
    for (const row of rows.filter((row) => row.endpoint_id === 'ep_ordered')) lines.set(row.ordering_key, [...(lines.get(row.ordering_key) ?? []), row]);
    expect(lines.size).toBe(PLANTS);
    for (const line of lines.values()) expect(line.map((row) => row.event_type)).toEqual(['plant.created', 'plant.deleted']);
    const due = await query<{ key: string; n: number }>(
      `SELECT ordering_key AS key, count(*)::int AS n FROM ${tables.deliveries} WHERE endpoint_id = 'ep_ordered' AND next_attempt_at IS NOT NULL GROUP BY ordering_key`,
    );
    expect(due.map((row) => row.n)).toEqual(Array(PLANTS).fill(1));
    expect(await writer.outbox.stuckLines(10)).toEqual([]);
  });

  it('runs again a plant write that waited for an enable replaying its line, so it joins behind the replayed messages', async () => {
    const storage = await open();
    await endpoint(storage, 'ep_ordered', 'plant');
    await storage.endpoints.setStatus('ep_ordered', 'disabled', 'off', T0);
    // Two parked messages in the line of plant 1: the replay makes the first due and holds the second.
    await storage.plants.create('acme', plant(1n, 'fern'), [], created(1n, T0 + 1));
    await storage.plants.delete('acme', 1n, deleted(1n, T0 + 2));
    // An enable caught after its replay, not committed yet, as an update runs it: the row locked, enabled, the line rejoined.
    const enable = await hostTransaction();
    await enable.query(lockEndpointStatusSql(tables), ['ep_ordered', null]);
    await enable.query(`UPDATE ${tables.endpoints} SET status = 'enabled', disabled_reason = NULL WHERE id = 'ep_ordered'`);
    for (const { id } of (await enable.query<{ id: string }>(inLineSinceSql(tables, 'parked'), ['ep_ordered', T0])).rows) {
      await enable.query(rejoinSql(tables, 'parked'), [id, T0 + 10, false]);
    }
    // A write whose snapshot still has the line parked waits for the enable's lock.
    const creating = storage.plants.create('acme', plant(1n, 'fern again'), [], created(1n, T0 + 3));
    await someoneWaits();
    await enable.query('COMMIT');
    await expect(creating).resolves.toMatchObject({ created: true });
    const line = await query<{ payload: string; event_type: string; due: boolean }>(
      `SELECT event_type, payload, next_attempt_at IS NOT NULL AS due FROM ${tables.deliveries}
       WHERE endpoint_id = 'ep_ordered' AND status = 'pending' ORDER BY line_seq, seq`,
    );
    expect(line.map((row) => [row.event_type, row.due])).toEqual([
      ['plant.created', true],
      ['plant.deleted', false],
      ['plant.created', false],
    ]);
  });

  it('counts exactly the parked messages dropped by concurrent writes of two instances past the bound, and keeps the newest', async () => {
    const [a, b] = [await open(5), await open(5)];
    await endpoint(a, 'ep_off');
    await a.endpoints.setStatus('ep_off', 'disabled', 'off', T0);
    const WRITES = 40;
    await Promise.all(
      Array.from({ length: WRITES }, (_, index) => {
        const id = BigInt(index + 1);
        return (index % 2 === 0 ? a : b).plants.create('acme', plant(id, `p${id}`), [], created(id, T0 + index + 1));
      }),
    );
    const kept = (await a.outbox.list({ endpointId: 'ep_off', status: 'parked' }))!;
    expect(kept.map((delivery) => delivery.createdAt)).toEqual([40, 39, 38, 37, 36].map((n) => T0 + n));
    expect(await parkedDropped('ep_off')).toBe(WRITES - 5);
    expect(await a.outbox.list({ endpointId: 'ep_off', status: 'pending' })).toEqual([]);
  });

  it('bounds in host transactions, on their own connections, without a deadlock when an enable comes in between', async () => {
    const storage = await open(0);
    await endpoint(storage, 'ep_off');
    await storage.endpoints.setStatus('ep_off', 'disabled', 'off', T0);
    // The first host parked a message and bounded it (none kept: it was dropped and counted), not committed yet.
    const first = await hostTransaction();
    await storage.joinTransaction!(first).create('acme', plant(1n, 'one'), [], created(1n, T0 + 1));
    // The second holds the endpoint's share lock as its write takes it; an enable then waits for both.
    const second = await hostTransaction();
    await second.query(shareEndpointSql(tables), ['ep_off']);
    const enabling = storage.endpoints.setStatus('ep_off', 'enabled', undefined, T0 + 10);
    await someoneWaits();
    // The second's write and bound wait for the first's turn at the bound, not behind the enable.
    const writing = storage.joinTransaction!(second).create('acme', plant(2n, 'two'), [], created(2n, T0 + 2));
    await someoneWaits(2);
    await first.query('COMMIT');
    await writing;
    await second.query('COMMIT');
    expect(await enabling).toMatchObject({ status: 'enabled', parkedDropped: 2 });
    expect(await storage.outbox.list({ endpointId: 'ep_off' })).toEqual([]);
  });

  it('keeps nothing of a host transaction rolled back: neither its parked message nor the drops its bound counted', async () => {
    const storage = await open(1);
    await endpoint(storage, 'ep_off');
    await storage.endpoints.setStatus('ep_off', 'disabled', 'off', T0);
    await storage.plants.create('acme', plant(1n, 'one'), [], created(1n, T0 + 1));
    const host = await hostTransaction();
    await storage.joinTransaction!(host).create('acme', plant(2n, 'two'), [], created(2n, T0 + 2));
    const [inside] = (await host.query(`SELECT parked_dropped FROM ${tables.endpoints} WHERE id = 'ep_off'`)).rows;
    expect(inside).toEqual({ parked_dropped: '1' });
    await host.query('ROLLBACK');
    expect(await parkedDropped('ep_off')).toBeUndefined();
    expect((await storage.outbox.list({ endpointId: 'ep_off' }))!.map((delivery) => delivery.payload)).toEqual(['{"id":1}']);
  });
});

// The parked index serves the bound (newest first, past the kept ones) and the replay (oldest first), however long the
// endpoint's finished history is.
describe.skipIf(!postgresAvailable)('parked deliveries SQL on an endpoint with a long history', () => {
  const HISTORY = 50_000;
  const { tables } = seededSchema(async (client, tables) => {
    await client.query(`INSERT INTO ${tables.endpoints} (id, tenant, url, event_types, status, secret, created_at, updated_at)
      VALUES ('ep_off', 't', 'https://r.example', '{plant.created}', 'disabled', 's', ${T0}, ${T0})`);
    const insert = (ids: string, status: string, key: string, count: number) =>
      client.query(`
        INSERT INTO ${tables.deliveries} (id, tenant, endpoint_id, event_type, payload, status, created_at, updated_at, ordering_key)
        SELECT ${ids}, 't', 'ep_off', 'plant.created', '{}', '${status}', ${T0} + i, ${T0} + i, ${key}
        FROM generate_series(1, ${count}) AS i`);
    await insert(`'old' || i`, 'delivered', `(i % 7)::text`, HISTORY);
    await insert(`'failed' || i`, 'failed', `(i % 7)::text`, HISTORY);
    await insert(`'parked' || i`, 'parked', `CASE WHEN i % 2 = 0 THEN (i % 7)::text END`, 200);
    await client.query(`ANALYZE ${tables.deliveries}`);
  });

  /** What `text` (run and rolled back) read: rows out of and filtered away in every scan. */
  const rowsRead = (text: string, parameters: unknown[]) =>
    withClient(async (client) => {
      await client.query('BEGIN');
      try {
        return (await explainedPlan(client, 'ANALYZE, FORMAT JSON', text, parameters))
          .filter((node) => node['Node Type'].endsWith('Scan') && node['Node Type'] !== 'CTE Scan')
          .reduce((sum, node) => sum + ((node['Actual Rows'] ?? 0) + (node['Rows Removed by Filter'] ?? 0)) * (node['Actual Loops'] ?? 1), 0);
      } finally {
        await client.query('ROLLBACK');
      }
    });
  // Rows read, not index names: the parked index and the (status, created_at) one both read only the parked rows, and which
  // the planner takes depends on the statistics ANALYZE sampled. A statement that deletes or rewrites them reads each again
  // (and the endpoint's row): a few times the parked rows at most, never the 100,000 finished ones.
  const PARKED_ROWS = 200;
  const A_FEW_PASSES = 3 * PARKED_ROWS;

  it('bounds an endpoint reading its parked messages only', async () => {
    expect(await rowsRead(boundParkedSql(tables), [['ep_off'], 100, 'ns'])).toBeLessThanOrEqual(A_FEW_PASSES);
  });

  it('replays and discards reading its parked messages only', async () => {
    expect(await rowsRead(inLineSinceSql(tables, 'parked'), ['ep_off', T0])).toBeLessThanOrEqual(PARKED_ROWS);
    expect(await rowsRead(discardParkedSql(tables), ['ep_off', T0, 'x', T0 + 100])).toBeLessThanOrEqual(A_FEW_PASSES);
    // Those in no line: the 200 parked, not its 100,000 finished.
    expect(await rowsRead(rejoinUnlinedSinceSql(tables, 'parked'), ['ep_off', T0, T0])).toBeLessThanOrEqual(PARKED_ROWS);
  });
});
