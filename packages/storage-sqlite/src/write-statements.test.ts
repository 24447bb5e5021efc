import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { migrate } from './migrations/migrate.js';
import { MIGRATIONS } from './migrations/migrations.js';
import { guardedWrites } from './sqlite-error.js';
import { SqlitePlantRepository } from './sqlite-plant-repository.js';
import { SqliteWebhookEndpoints } from './sqlite-webhook-endpoints.js';
import { SqliteWebhookOutbox } from './sqlite-webhook-outbox.js';

/*
 * Which statements the writes send to SQLite, read from the driver's
 * statement log: the repositories assembled as the storage assembles them,
 * on a connection that records every statement it runs.
 */

const T0 = 1_700_000_000_000;
const TENANT = 'acme';

const connections: BetterSqlite3.Database[] = [];
afterEach(() => {
  for (const db of connections.splice(0)) db.close();
});

async function assembled(parkedLimit?: number) {
  const log: string[] = [];
  const db = new BetterSqlite3(':memory:', { verbose: (statement) => log.push(String(statement)) });
  connections.push(db);
  db.defaultSafeIntegers(true);
  db.pragma('foreign_keys = ON');
  await migrate(db, MIGRATIONS);
  const writes = guardedWrites(db, () => {});
  const outbox = new SqliteWebhookOutbox(db, writes, parkedLimit);
  const endpoints = new SqliteWebhookEndpoints(db, writes, outbox);
  const plants = new SqlitePlantRepository(db, outbox, writes);
  /** The statements `run` sends. */
  const statementsOf = async (run: () => Promise<unknown>) => {
    log.length = 0;
    await run();
    return [...log];
  };
  return { outbox, endpoints, plants, statementsOf };
}

const endpoint = (id: string) => ({
  id,
  tenant: TENANT,
  url: `https://${id}.example/hook`,
  eventTypes: ['plant.created' as const],
  secret: 'whsec_c2VjcmV0',
  createdAt: T0,
});

describe('sqlite write statements', () => {
  it('a plant write queues the deliveries of every subscribed endpoint with one statement, not one per endpoint', async () => {
    const { outbox, endpoints, plants, statementsOf } = await assembled();
    for (const id of ['ep_a', 'ep_b', 'ep_c']) await endpoints.create(endpoint(id), 50);
    const event = { eventType: 'plant.created' as const, payload: '{"id":"1","name":"fern"}', createdAt: T0 };
    const statements = await statementsOf(() => plants.create(TENANT, { id: 1n, name: 'fern' }, [], event));
    expect(statements.filter((sql) => /INSERT INTO webhook_deliveries/.test(sql))).toHaveLength(1);
    expect((await outbox.list())!.map((delivery) => delivery.endpointId).sort()).toEqual(['ep_a', 'ep_b', 'ep_c']);
  });

  it('runs each write in one transaction, never a transaction nested inside it (a savepoint)', async () => {
    const { outbox, endpoints, plants, statementsOf } = await assembled();
    const event = { eventType: 'plant.created' as const, payload: '{"id":"1","name":"fern"}', createdAt: T0 };
    const writes: (() => Promise<unknown>)[] = [
      () => endpoints.create(endpoint('ep_a'), 50),
      () => endpoints.update(TENANT, 'ep_a', { description: 'd', updatedAt: T0 }),
      () => plants.create(TENANT, { id: 1n, name: 'fern' }, [], event),
      async () => {
        const [claimed] = await outbox.claimDue({ owner: 'o', now: T0, leaseMs: 1000, limit: 1 });
        await outbox.recordAttempt(claimed!.id, 'o', { at: T0, durationMs: 3, statusCode: 200 }, { status: 'delivered' });
      },
      () => outbox.prune({ olderThan: T0 + 10, limit: 10 }),
      () => endpoints.setStatus('ep_a', 'disabled', 'by the operator', T0),
      () => endpoints.setStatus('ep_a', 'enabled', undefined, T0),
      () => endpoints.delete(TENANT, 'ep_a', T0),
    ];
    for (const write of writes) {
      const statements = await statementsOf(write);
      expect(statements.some((sql) => /^BEGIN/.test(sql))).toBe(true);
      expect(statements.filter((sql) => /^(SAVEPOINT|RELEASE)/.test(sql))).toEqual([]);
    }
    expect(await outbox.list()).toEqual([]);
  });

  it('a plant write to a tenant without disabled endpoints sends nothing for parked messages: no bound, no count', async () => {
    const { endpoints, plants, statementsOf } = await assembled();
    for (const id of ['ep_a', 'ep_b']) await endpoints.create(endpoint(id), 50);
    const event = { eventType: 'plant.created' as const, payload: '{"id":"1","name":"fern"}', createdAt: T0 };
    const statements = await statementsOf(() => plants.create(TENANT, { id: 1n, name: 'fern' }, [], event));
    expect(statements.filter((sql) => /parked_dropped|DELETE FROM webhook_deliveries/.test(sql))).toEqual([]);
  });

  it("bounds the parked messages of a disabled endpoint in the plant write's transaction, a group's writes each in turn", async () => {
    const { outbox, endpoints, plants, statementsOf } = await assembled(2);
    for (const id of ['ep_a', 'ep_off']) await endpoints.create(endpoint(id), 50);
    await endpoints.setStatus('ep_off', 'disabled', 'by hand', T0);
    const event = (id: number) => ({ eventType: 'plant.created' as const, payload: `{"id":"${id}","name":"fern"}`, createdAt: T0 + id });
    // Three creates in one turn of the event loop: one group, one transaction.
    const statements = await statementsOf(() => Promise.all([1, 2, 3].map((id) => plants.create(TENANT, { id: BigInt(id), name: 'fern' }, [], event(id)))));
    const begin = statements.findIndex((sql) => /^BEGIN/.test(sql));
    const commit = statements.findIndex((sql) => /^COMMIT/.test(sql));
    const bounds = statements.flatMap((sql, index) => (/DELETE FROM webhook_deliveries/.test(sql) ? [index] : []));
    expect(bounds).toHaveLength(3);
    expect(bounds.every((index) => begin < index && index < commit)).toBe(true);
    expect(statements.filter((sql) => /^BEGIN/.test(sql))).toHaveLength(1);
    const parked = (await outbox.list({ endpointId: 'ep_off', status: 'parked' }))!.map((delivery) => delivery.payload);
    expect(parked).toEqual(['{"id":"3","name":"fern"}', '{"id":"2","name":"fern"}']);
    expect(await endpoints.get(TENANT, 'ep_off')).toMatchObject({ parkedDropped: 1 });
    expect(await outbox.list({ endpointId: 'ep_a', status: 'pending' })).toHaveLength(3);
  });
});
