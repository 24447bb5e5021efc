import pg from 'pg';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Storage } from '@plant-store/core/adapter';
import { sampleDelivery as delivery, samplePlant as plant } from '@plant-store/core/testing';
import { postgresAvailable, TEST_DATABASE_URL, testSchemas, withClient } from '../../../test/support/postgres.js';
import { eventually } from '../../../test/support/eventually.js';
import { releaseNextSql } from './delivery-lines.js';
import { lockEndpointStatusSql } from './endpoint-queries.js';
import { enqueueSql } from './outbox-queries.js';
import { parkEndpointSql } from './parked-deliveries.js';
import { deletePlantSql } from './plant-queries.js';
import { postgresStorage } from './postgres-storage.js';
import { tablesIn, type Tables } from './tables.js';

const T0 = 1_700_000_000_000;
const LEASE_MS = 1_000;

// Delivery lines where several transactions meet: what the conformance suite, one call at a time, cannot show.
describe.skipIf(!postgresAvailable)('postgres delivery lines under concurrent writes', () => {
  const schemas = testSchemas();
  let schema = '';
  let tables: Tables;
  const opened: Storage[] = [];
  /** A transaction the test holds open on a connection of its own, to stand for a write caught mid-way. */
  let held: pg.Client | undefined;

  const open = async () => {
    const storage = await postgresStorage({ connectionString: TEST_DATABASE_URL, schema });
    opened.push(storage);
    return storage;
  };
  const hold = async () => {
    held = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await held.connect();
    await held.query('BEGIN');
    return held;
  };
  /** Until a statement on this schema waits for a lock the held transaction has. */
  const someoneWaits = () =>
    eventually(
      () =>
        withClient(async (client) => {
          const { rows } = await client.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND strpos(query, $1) > 0`, [
            schema,
          ]);
          return (rows[0] as { n: number }).n > 0;
        }),
      'a statement waiting for the held transaction',
    );
  const ordered = (storage: Storage) =>
    storage.endpoints.create(
      {
        id: 'ep_ordered',
        tenant: 'acme',
        url: 'https://receiver.example/hook',
        eventTypes: ['plant.created', 'plant.deleted'],
        ordering: 'plant',
        secret: 'whsec_c2VjcmV0c2VjcmV0c2VjcmV0',
        createdAt: T0,
      },
      50,
    );

  beforeEach(() => {
    schema = schemas.next();
    tables = tablesIn(schema);
  });
  afterEach(async () => {
    await held?.end().catch(() => {});
    held = undefined;
    await Promise.all(opened.splice(0).map((storage) => storage.close()));
  });
  afterAll(() => schemas.dropAll());

  it('parks every message of a line when the endpoint is disabled while a plant write queues one behind its head', async () => {
    const storage = await open();
    await ordered(storage);
    await storage.plants.create('acme', plant(1n, 'fern'), [], { eventType: 'plant.created', payload: '{"id":1}', createdAt: T0 });
    // The delete of plant 1 has queued its message behind the head and not committed yet.
    const write = await hold();
    await write.query(deletePlantSql(tables), ['acme', 1n, 'plant.deleted', '{"id":1}', T0 + 1, null, [], [], []]);
    const disabling = storage.endpoints.setStatus('ep_ordered', 'disabled', 'x', T0 + 10);
    await someoneWaits();
    await write.query('COMMIT');
    await disabling;
    const deliveries = (await storage.outbox.list({ endpointId: 'ep_ordered' }))!;
    expect(deliveries.map((d) => [d.eventType, d.status])).toEqual([
      ['plant.deleted', 'parked'],
      ['plant.created', 'parked'],
    ]);
    expect(await storage.outbox.pendingStats()).toEqual({ count: 0 });
  });

  it('ends the line of a deleted endpoint with the message a concurrent write queued into it', async () => {
    const storage = await open();
    await ordered(storage);
    await storage.plants.create('acme', plant(1n, 'fern'), [], { eventType: 'plant.created', payload: '{"id":1}', createdAt: T0 });
    const write = await hold();
    await write.query(deletePlantSql(tables), ['acme', 1n, 'plant.deleted', '{"id":1}', T0 + 1, null, [], [], []]);
    const deleting = storage.endpoints.delete('acme', 'ep_ordered', T0 + 10);
    await someoneWaits();
    await write.query('COMMIT');
    expect(await deleting).toBe(true);
    expect(await storage.outbox.pendingStats()).toEqual({ count: 0 });
  });

  it('lets a plant write wait for an endpoint whose lines are being parked without holding any of them (no deadlock)', async () => {
    const storage = await open();
    await ordered(storage);
    await storage.plants.create('acme', plant(1n, 'fern'), [], { eventType: 'plant.created', payload: '{"id":1}', createdAt: T0 });
    // A disable caught between locking the endpoint and parking its lines, as an update runs them.
    const disable = await hold();
    await disable.query(lockEndpointStatusSql(tables), ['ep_ordered', null]);
    await disable.query(`UPDATE ${tables.endpoints} SET status = 'disabled' WHERE id = 'ep_ordered'`);
    const deleting = storage.plants.delete('acme', 1n, { eventType: 'plant.deleted', payload: '{"id":1}', createdAt: T0 + 1 });
    await someoneWaits();
    await disable.query(parkEndpointSql(tables), ['ep_ordered', T0 + 10]);
    await disable.query('COMMIT');
    expect(await deleting).toBe(true);
    // The write saw the endpoint disabled, as its lock found the row: it parked its message, and the line was parked whole.
    const deliveries = (await storage.outbox.list({ endpointId: 'ep_ordered' }))!;
    expect(deliveries.map((d) => [d.eventType, d.status])).toEqual([
      ['plant.deleted', 'parked'],
      ['plant.created', 'parked'],
    ]);
    expect(deliveries.map((d) => d.orderingKey)).toEqual(['1', '1']);
  });

  it('parks the lines of an endpoint while a recorder ends a message of one and releases the next (no deadlock)', async () => {
    const storage = await open();
    await ordered(storage);
    // The held one first on disk, so a scan of the endpoint's pending rows meets it before the head.
    await withClient((client) =>
      client.query(`
        INSERT INTO ${tables.deliveries} (id, tenant, endpoint_id, event_type, payload, status, next_attempt_at, created_at, updated_at, ordering_key, line_seq)
        VALUES ('held', 'acme', 'ep_ordered', 'plant.deleted', '{}', 'pending', NULL, ${T0}, ${T0}, '1', 2),
               ('head', 'acme', 'ep_ordered', 'plant.created', '{}', 'pending', ${T0}, ${T0}, ${T0}, '1', 1)`),
    );
    // A recorder between ending the head and releasing the next, as its transaction runs them.
    const recorder = await hold();
    await recorder.query(`UPDATE ${tables.deliveries} SET status = 'delivered', next_attempt_at = NULL WHERE id = 'head'`);
    const disabling = storage.endpoints.setStatus('ep_ordered', 'disabled', 'x', T0 + 10);
    await someoneWaits();
    await recorder.query(releaseNextSql(tables), [['ep_ordered'], ['1'], [T0 + 5]]);
    await recorder.query('COMMIT');
    await disabling;
    expect((await storage.outbox.get('head'))?.status).toBe('delivered');
    expect((await storage.outbox.get('held'))?.status).toBe('parked');
  });

  it('keeps one message of a line in flight when two writes each found it empty, and tells when a claim can next succeed', async () => {
    const storage = await open();
    // The first write into plant 5's empty line takes the lower place in queue order but commits last.
    const first = await hold();
    await first.query(enqueueSql(tables), ['msg_first', 'acme', 'ep_ordered', 'plant.deleted', '{}', T0, false, '5']);
    await storage.outbox.enqueue(delivery('msg_second', { tenant: 'acme', endpointId: 'ep_ordered', orderingKey: '5', createdAt: T0 }));
    const claimed = await storage.outbox.claimDue({ owner: 'a', now: T0 + 10, leaseMs: LEASE_MS, limit: 10 });
    expect(claimed.map((d) => d.id)).toEqual(['msg_second']);
    await first.query('COMMIT');

    // Both due, one in flight: no other claim takes the first, and neither the next due time nor the wait for a slot counts it.
    expect(await storage.outbox.claimDue({ owner: 'b', now: T0 + 20, leaseMs: LEASE_MS, limit: 10 })).toEqual([]);
    expect(await storage.outbox.nextDueAt()).toBe(T0 + 10 + LEASE_MS);
    expect(await storage.outbox.waitingSince(T0 + 20)).toEqual(new Map());

    await storage.outbox.recordAttempt('msg_second', 'a', { at: T0 + 30, durationMs: 5, statusCode: 200 }, { status: 'delivered' });
    expect(await storage.outbox.nextDueAt()).toBe(T0);
    const next = await storage.outbox.claimDue({ owner: 'b', now: T0 + 40, leaseMs: LEASE_MS, limit: 10 });
    expect(next.map((d) => d.id)).toEqual(['msg_first']);
  });

  it("has any instance record the end of a line's message and release the next, not only the one that claimed it", async () => {
    const [claimer, recorder] = [await open(), await open()];
    await ordered(claimer);
    await claimer.plants.create('acme', plant(1n, 'fern'), [], { eventType: 'plant.created', payload: '{"id":1}', createdAt: T0 });
    await claimer.plants.delete('acme', 1n, { eventType: 'plant.deleted', payload: '{"id":1}', createdAt: T0 + 1 });
    const [head] = await claimer.outbox.claimDue({ owner: 'a', now: T0 + 10, leaseMs: LEASE_MS, limit: 10 });
    expect(head).toMatchObject({ eventType: 'plant.created' });
    expect(await recorder.outbox.recordAttempt(head!.id, 'a', { at: T0 + 20, durationMs: 5, statusCode: 200 }, { status: 'delivered' })).toBe(true);
    const [next] = await claimer.outbox.claimDue({ owner: 'a', now: T0 + 30, leaseMs: LEASE_MS, limit: 10 });
    expect(next).toMatchObject({ eventType: 'plant.deleted' });
  });
  it('releases a stuck line only once a disable parking its messages has committed, and then releases none of them', async () => {
    const storage = await open();
    await ordered(storage);
    await storage.plants.create('acme', plant(1n, 'fern'), [], { eventType: 'plant.created', payload: '{"id":1}', createdAt: T0 });
    await storage.plants.delete('acme', 1n, { eventType: 'plant.deleted', payload: '{"id":1}', createdAt: T0 + 1 });
    const [head] = (await storage.outbox.list({ endpointId: 'ep_ordered' }))!.reverse();
    // The head loses its due time: the line is stuck.
    await withClient((client) => client.query(`UPDATE ${tables.deliveries} SET next_attempt_at = NULL WHERE id = $1`, [head!.id]));
    // A disable has parked the line's messages and not committed yet.
    const disable = await hold();
    await disable.query(lockEndpointStatusSql(tables), ['ep_ordered', null]);
    await disable.query(parkEndpointSql(tables), ['ep_ordered', T0 + 10]);
    const releasing = storage.outbox.releaseStuckLine({ endpointId: 'ep_ordered', orderingKey: '1' }, T0 + 20);
    await someoneWaits();
    await disable.query('COMMIT');
    expect(await releasing).toBe(0);
    // A parked message never gets a due time back from it.
    const { rows } = await withClient((client) => client.query(`SELECT status, next_attempt_at FROM ${tables.deliveries} ORDER BY id`));
    expect(rows).toEqual([
      { status: 'parked', next_attempt_at: null },
      { status: 'parked', next_attempt_at: null },
    ]);
  });
});
