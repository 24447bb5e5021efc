import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ConfigurationError, createPlantStore, NotFoundError, type PlantStore, type PlantEvents } from '@plant-store/core';
import { postgresStorage } from '@plant-store/storage-postgres';
import { acme, globex } from '../support/principals.js';
import { postgresAvailable, TEST_DATABASE_URL, testSchemas } from '../support/postgres.js';
import { startReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import { embeddedStore, hookedIds } from './embedded-store.js';

describe.skipIf(!postgresAvailable)('the store in a host transaction on PostgreSQL', () => {
  const schemas = testSchemas();
  const schema = schemas.next();
  const orders = `${pg.escapeIdentifier(schema)}.orders`;
  let hostPool: pg.Pool;
  let receiver: WebhookReceiver;
  let store: PlantStore;
  let created: PlantEvents['plant.created'][];

  beforeAll(async () => {
    hostPool = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 6 });
    receiver = await startReceiver();
    ({ store, created } = embeddedStore(await postgresStorage({ pool: hostPool, schema }), receiver));
    await hostPool.query(`CREATE TABLE ${orders} (id bigint PRIMARY KEY, plant_id bigint NOT NULL)`);
  });

  afterAll(async () => {
    await store?.close();
    await receiver?.close();
    await hostPool?.end();
    await schemas.dropAll();
  });

  /** The host's own transaction on a client of its pool: BEGIN, `work`, then COMMIT, or ROLLBACK when it throws. */
  async function hostTransaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await hostPool.connect();
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK');
      throw error;
    } finally {
      client.release();
    }
  }

  const deliveriesOf = async (id: bigint) =>
    (await hostPool.query(`SELECT count(*)::int AS n FROM ${pg.escapeIdentifier(schema)}.webhook_deliveries WHERE payload LIKE $1`, [`{"id":${id},%`])).rows[0]
      .n as number;

  it('commits the plant, the host order and the webhook together, delivered exactly once and its event emitted after the commit', async () => {
    const joined = await hostTransaction(async (client) => {
      await client.query(`INSERT INTO ${orders} VALUES (1, 1)`);
      const tx = store.inTransaction(client);
      const outcome = await tx.plants.create(acme, { id: 1, name: 'Fern' });
      expect(outcome.created).toBe(true);
      expect(created).toHaveLength(0); // not before the commit
      return tx;
    });
    joined.committed();
    expect(created.map((event) => event.plant.id)).toEqual([1n]);
    await receiver.waitFor(1, { path: '/hook' });
    await expect(store.plants.get(acme, 1)).resolves.toMatchObject({ name: 'Fern' });
    await vi.waitFor(async () => expect((await store.allTenants.webhooks.list({ status: 'delivered' })).length).toBe(1));
    expect(hookedIds(receiver)).toEqual(['1']);
    expect(receiver.duplicates()).toBe(0);
  });

  it('rolls back the plant and its deliveries with the host: no plant, no delivery, no event', async () => {
    const before = created.length;
    await expect(
      hostTransaction(async (client) => {
        const tx = store.inTransaction(client);
        await tx.plants.create(acme, { id: 2, name: 'Palm' });
        throw new Error('the host changed its mind');
      }),
    ).rejects.toThrow('changed its mind');
    await expect(store.plants.get(acme, 2)).rejects.toBeInstanceOf(NotFoundError);
    expect(await deliveriesOf(2n)).toBe(0);
    expect(created.length).toBe(before);
  });

  it('leaves a plant absent and its id free when the host statement after it fails', async () => {
    await expect(
      hostTransaction(async (client) => {
        await store.inTransaction(client).plants.create(acme, { id: 3, name: 'Ivy' });
        await client.query(`INSERT INTO ${orders} VALUES (1, 3)`); // order 1 exists: a unique violation
      }),
    ).rejects.toThrow(/duplicate key/);
    await expect(store.plants.get(acme, 3)).rejects.toBeInstanceOf(NotFoundError);
    expect(await deliveriesOf(3n)).toBe(0);
    await expect(store.plants.create(acme, { id: 3, name: 'Moss' })).resolves.toMatchObject({ created: true });
  });

  it('runs two host transactions at once on two pool clients', async () => {
    const [a, b] = await Promise.all(
      [10, 11].map((id) =>
        hostTransaction(async (client) => {
          await client.query(`INSERT INTO ${orders} VALUES ($1, $1)`, [id]);
          const tx = store.inTransaction(client);
          await tx.plants.create(acme, { id, name: `Plant ${id}` });
          return tx;
        }),
      ),
    );
    a!.committed();
    b!.committed();
    await expect(store.plants.get(acme, 10)).resolves.toMatchObject({ id: 10n });
    await expect(store.plants.get(acme, 11)).resolves.toMatchObject({ id: 11n });
    await receiver.waitForMessages(1 + 1 + 2);
    expect(hookedIds(receiver)).toEqual(['1', '10', '11', '3']);
  });

  it('does not hold up other writers while a host transaction is open', async () => {
    const client = await hostPool.connect();
    try {
      await client.query('BEGIN');
      await store.inTransaction(client).plants.create(acme, { id: 20, name: 'Open' });
      // Both would wait for the open transaction were it to lock more than its own row: the test would time out.
      await expect(store.plants.create(globex, { id: 20, name: 'Other tenant' })).resolves.toMatchObject({ created: true });
      await expect(store.plants.create(acme, { id: 21, name: 'Same tenant' })).resolves.toMatchObject({ created: true });
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
    await expect(store.plants.get(acme, 20)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('writes in a kysely Transaction, with the host kysely on the same pool', async () => {
    const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool: hostPool }) });
    const joined = await db.transaction().execute(async (trx) => {
      await sql`INSERT INTO ${sql.table(`${schema}.orders`)} VALUES (30, 30)`.execute(trx);
      const tx = store.inTransaction(trx);
      await tx.plants.create(acme, { id: 30, name: 'Kysely fern' });
      await tx.plants.delete(acme, 21);
      return tx;
    });
    joined.committed();
    await expect(store.plants.get(acme, 30)).resolves.toMatchObject({ name: 'Kysely fern' });
    await expect(store.plants.get(acme, 21)).rejects.toBeInstanceOf(NotFoundError);
    // A conflict is read back on the transaction too.
    await expect(db.transaction().execute((trx) => store.inTransaction(trx).plants.create(acme, { id: 30, name: 'Kysely fern' }))).resolves.toMatchObject({
      created: false,
      plant: { id: 30n },
    });
    await expect(db.transaction().execute((trx) => store.inTransaction(trx).plants.create(acme, { id: 30, name: 'Other' }))).rejects.toMatchObject({
      code: 'conflict',
    });
    await expect(sql`SELECT 1`.execute(db)).resolves.toBeTruthy();
    // Not db.destroy(): that would end the host's pool, which the tests still use.
  });

  it('checks scopes and input as the store does, before writing anything', async () => {
    const client = await hostPool.connect();
    try {
      const tx = store.inTransaction(client);
      await expect(tx.plants.create({ ...acme, scopes: ['plants:read'] }, { id: 40, name: 'x' })).rejects.toMatchObject({ code: 'forbidden' });
      await expect(tx.plants.create(acme, { id: 'forty', name: 'x' })).rejects.toMatchObject({ code: 'validation' });
      expect(() => tx.plants.createSync(acme, { id: 40, name: 'x' })).toThrow(ConfigurationError);
    } finally {
      client.release();
    }
  });

  it('refuses executors that are not in a transaction', () => {
    expect(() => store.inTransaction(hostPool)).toThrow(/pg Pool/);
    expect(() => store.inTransaction(new Kysely<unknown>({ dialect: new PostgresDialect({ pool: hostPool }) }))).toThrow(/outside a transaction/);
    expect(() => store.inTransaction({})).toThrow(ConfigurationError);
  });

  it('wakes another instance’s dispatcher at the host’s commit (NOTIFY inside the transaction)', async () => {
    // A schema of their own: this suite's store would claim deliveries to a subscription it does not know.
    const apart = schemas.next();
    const other = await startReceiver();
    const writer = embeddedStore(await postgresStorage({ pool: hostPool, schema: apart }), other, false).store;
    const sender = embeddedStore(await postgresStorage({ connectionString: TEST_DATABASE_URL, schema: apart }), other).store;
    const listening = new pg.Client({ connectionString: TEST_DATABASE_URL });
    try {
      await listening.connect();
      await listening.query('LISTEN plant_store_outbox');
      const notified = new Promise((resolve) => listening.on('notification', (message) => message.payload === apart && resolve(message.payload)));
      // The writer sends nothing and the host never calls committed(): the NOTIFY it committed is what wakes the sender.
      await hostTransaction((client) => writer.inTransaction(client).plants.create(acme, { id: 50, name: 'Notified' }));
      await expect(notified).resolves.toBe(apart);
      await other.waitFor(1, { path: '/hook' });
      expect(hookedIds(other)).toEqual(['50']);
    } finally {
      await Promise.all([writer.close(), sender.close(), listening.end()]);
      await other.close();
    }
  });

  it('leaves the host’s connections as they were: no prepared statements, its own int8 parsing', async () => {
    const single = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 1 });
    try {
      const own = createPlantStore({ storage: await postgresStorage({ pool: single, schema }) });
      await own.plants.create(globex, { id: 60, name: 'Borrowed' });
      await expect(own.plants.get(globex, 60)).resolves.toMatchObject({ id: 60n });
      await own.plants.list(globex, { limit: 5 });
      await own.close();
      await expect(single.query('SELECT count(*) AS n FROM pg_prepared_statements')).resolves.toMatchObject({ rows: [{ n: '0' }] });
    } finally {
      await single.end();
    }
  });

  it('queues to a filtered endpoint only what its filter matches in the host’s transaction, following a change of the filter', async () => {
    const { endpoint } = await store.webhooks.endpoints.create(globex, { url: 'https://receiver.example/filtered', filter: { 'data.tag': 'indoor' } });
    const write = (id: number, tag: string) => hostTransaction((client) => store.inTransaction(client).plants.create(globex, { id, name: 'Filtered', tag }));
    await write(70, 'indoor');
    await write(71, 'outdoor');
    await store.webhooks.endpoints.update(globex, endpoint.id, { filter: { 'data.tag': 'outdoor' } });
    await write(72, 'indoor');
    await write(73, 'outdoor');
    const { rows } = await hostPool.query<{ payload: string }>(`SELECT payload FROM ${pg.escapeIdentifier(schema)}.webhook_deliveries WHERE endpoint_id = $1`, [
      endpoint.id,
    ]);
    expect(rows.map(({ payload }) => (JSON.parse(payload) as { id: number }).id).sort()).toEqual([70, 73]);
    await store.webhooks.endpoints.delete(globex, endpoint.id);
  });

  it('never ends the host pool: closing the store leaves it working', async () => {
    const own = await postgresStorage({ pool: hostPool, schema });
    await own.close();
    expect(hostPool.ended).toBe(false);
    await expect(hostPool.query('SELECT 1 AS one')).resolves.toMatchObject({ rows: [{ one: 1 }] });
  });
});
