import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import pg from 'pg';
import { ConfigurationError, StorageError, createPlantStore, type Principal } from '@plant-store/core';
import { silentLogger, type NewDelivery, type ReclaimSpaceOptions, type Storage, type WebhookRequest } from '@plant-store/core/adapter';
import { describeStorageConformance, sampleDelivery as delivery, samplePlant as plant } from '@plant-store/core/testing';
import { postgresStorage, type PostgresStorageOptions } from '@plant-store/storage-postgres';
import { migrate } from '../../packages/storage-postgres/src/migrations/migrate.js';
import { MIGRATIONS } from '../../packages/storage-postgres/src/migrations/migrations.js';
import { postgresAvailable, TEST_DATABASE_URL, testSchemas, withClient } from '../support/postgres.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';

const schemas = testSchemas();
afterAll(() => schemas.dropAll());

let schema = '';
const options = (extra: Partial<PostgresStorageOptions> = {}): PostgresStorageOptions => ({
  connectionString: TEST_DATABASE_URL,
  schema,
  ...extra,
});

describe.skipIf(!postgresAvailable)('postgres', () => {
  describeStorageConformance('postgres', {
    create: () => postgresStorage(options({ schema: (schema = schemas.next()) })),
    capabilities: {
      persistent: { reopen: () => postgresStorage(options()) },
      parkedLimit: (parkedLimit) => postgresStorage({ connectionString: TEST_DATABASE_URL, schema: schemas.next(), parkedLimit }),
      dropDueTime: (_storage, id) =>
        withClient(async (client) => {
          await client.query(`UPDATE ${pg.escapeIdentifier(schema)}.webhook_deliveries SET next_attempt_at = NULL WHERE id = $1`, [id]);
        }),
    },
  });

  describe('postgresStorage', () => {
    const opened: Storage[] = [];
    const proxies: TcpProxy[] = [];
    const open = async (extra: Partial<PostgresStorageOptions> = {}) => {
      const storage = await postgresStorage(options(extra));
      opened.push(storage);
      return storage;
    };
    afterEach(async () => {
      // Storages first: closing one must not wait on a connection the proxy left stalled.
      await Promise.all(opened.splice(0).map((storage) => storage.close()));
      await Promise.all(proxies.splice(0).map((proxy) => proxy.close()));
    });
    const fresh = () => (schema = schemas.next());
    const T0 = 1_700_000_000_000;

    it('starts 3 instances together on an empty schema: all start, the schema is migrated once', async () => {
      const name = fresh();
      const [a, b, c] = await Promise.all([open(), open(), open()]);
      const applied = await withClient(async (client) => {
        const { rows } = await client.query(`SELECT name FROM ${pg.escapeIdentifier(name)}.kysely_migration ORDER BY name`);
        return rows.map((row: { name: string }) => row.name);
      });
      expect(applied).toEqual(Object.keys(MIGRATIONS));
      await a!.plants.create('t', plant(1n, 'from a'), []);
      expect(await b!.plants.get('t', 1n)).toEqual({ id: 1n, name: 'from a' });
      expect(await c!.plants.list('t', { limit: 10 })).toEqual([{ id: 1n, name: 'from a' }]);
    });

    it("migrates a schema whose operator built the endpoint_due index beforehand, with the changelog's CONCURRENTLY command", async () => {
      const name = fresh();
      const indexOf = () =>
        withClient(async (client) => {
          const { rows } = await client.query(`SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND indexname = 'webhook_deliveries_endpoint_due'`, [
            name,
          ]);
          return rows.map((row: { indexdef: string }) => row.indexdef);
        });
      await (await postgresStorage(options())).close();
      const built = await indexOf();
      expect(built).toHaveLength(1);
      // The operator's upgrade path: the schema as it was before that migration, and the index built without blocking writes.
      const command = /`(CREATE INDEX CONCURRENTLY webhook_deliveries_endpoint_due ON <schema>\.[^`]+)`/.exec(
        readFileSync(join(import.meta.dirname, '..', '..', 'CHANGELOG.md'), 'utf8'),
      )?.[1];
      expect(command).toBeDefined();
      await withClient((client) => client.query(`DROP SCHEMA ${pg.escapeIdentifier(name)} CASCADE`));
      const before = Object.fromEntries(Object.entries(MIGRATIONS).filter(([migration]) => migration < '007-endpoint-due'));
      await migrate({ connectionString: TEST_DATABASE_URL }, name, before);
      await withClient((client) => client.query(command!.replace('<schema>', pg.escapeIdentifier(name))));
      await open();
      expect(await indexOf()).toEqual(built);
      const applied = await withClient(
        async (client) => (await client.query(`SELECT name FROM ${pg.escapeIdentifier(name)}.kysely_migration ORDER BY name`)).rows,
      );
      expect(applied.map((row: { name: string }) => row.name)).toEqual(Object.keys(MIGRATIONS));
    });

    it('has the outbox tables of its schema vacuumed after a fixed number of dead rows (what retention deletes is reused soon)', async () => {
      const name = fresh();
      await open();
      const options = await withClient(async (client) => {
        const { rows } = await client.query(
          `SELECT c.relname, c.reloptions FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
           WHERE n.nspname = $1 AND c.relname IN ('webhook_deliveries', 'webhook_attempts') ORDER BY c.relname`,
          [name],
        );
        return rows as { relname: string; reloptions: string[] | null }[];
      });
      expect(options).toEqual(
        ['webhook_attempts', 'webhook_deliveries'].map((relname) => ({
          relname,
          reloptions: ['autovacuum_vacuum_scale_factor=0', 'autovacuum_vacuum_threshold=1000'],
        })),
      );
    });

    it('stores ids and times in bigint columns, exact at the int64 edges, without changing pg globally', async () => {
      const name = fresh();
      const storage = await open();
      const edges = [-9223372036854775808n, -9007199254740993n, 9007199254740993n, 9223372036854775807n];
      for (const id of edges) await storage.plants.create('t', plant(id, `p${id}`, 'edge'), []);
      expect((await storage.plants.list('t', { tags: ['edge'], limit: 10 })).map((p) => p.id)).toEqual(edges);
      expect(await storage.plants.idAtOffset('t', { offset: 3 })).toBe(9223372036854775807n);
      expect(await storage.plants.delete('t', -9223372036854775808n)).toBe(true);
      await withClient(async (client) => {
        const { rows: types } = await client.query(
          `SELECT table_name, column_name FROM information_schema.columns
           WHERE table_schema = $1 AND data_type = 'bigint' ORDER BY table_name, column_name`,
          [name],
        );
        expect(types.map((row: { table_name: string; column_name: string }) => `${row.table_name}.${row.column_name}`)).toEqual(
          expect.arrayContaining(['plants.id', 'webhook_deliveries.created_at', 'webhook_deliveries.next_attempt_at']),
        );
        // A plain pg client still reads int8 as a string: the storage set no global parser.
        const { rows } = await client.query(`SELECT id FROM ${pg.escapeIdentifier(name)}.plants ORDER BY id`);
        expect(rows.map((row: { id: unknown }) => row.id)).toEqual(['-9007199254740993', '9007199254740993', '9223372036854775807']);
      });
      expect(pg.types.getTypeParser(20)('9007199254740993')).toBe('9007199254740993');
    });

    it('never hands one delivery to two storages claiming at once', async () => {
      fresh();
      const [a, b] = await Promise.all([open(), open()]);
      const all: NewDelivery[] = Array.from({ length: 60 }, (_, i) => delivery(`d${String(i).padStart(2, '0')}`, { createdAt: T0 + i }));
      for (let i = 0; i < all.length; i += 10) await a.plants.create('t', plant(BigInt(i), 'p'), all.slice(i, i + 10));
      const drain = async (storage: Storage, owner: string) => {
        const ids: string[] = [];
        for (;;) {
          const claimed = await storage.outbox.claimDue({ owner, now: T0 + 100, leaseMs: 60_000, limit: 7 });
          if (claimed.length === 0) return ids;
          ids.push(...claimed.map((d) => d.id));
        }
      };
      const [fromA, fromB] = await Promise.all([drain(a, 'a'), drain(b, 'b')]);
      expect(fromA.filter((id) => fromB.includes(id))).toEqual([]);
      expect([...fromA, ...fromB].sort()).toEqual(all.map((d) => d.id));
      // Each holds its leases: the other cannot record its attempts.
      const attempt = { at: T0 + 100, durationMs: 1, statusCode: 200 };
      if (fromA[0]) expect(await b.outbox.recordAttempt(fromA[0], 'b', attempt, { status: 'delivered' })).toBe(false);
      if (fromB[0]) expect(await b.outbox.recordAttempt(fromB[0], 'b', attempt, { status: 'delivered' })).toBe(true);
    });

    it('keeps one rate budget per endpoint for every storage on the schema: at most rateLimit admitted per aligned second', async () => {
      fresh();
      const [a, b] = [await open(), await open()];
      const endpoint = {
        id: 'ep_rated',
        tenant: 't',
        url: 'https://receiver.example/',
        eventTypes: ['plant.created' as const],
        rateLimit: 3,
        secret: 'whsec_x',
        createdAt: T0,
      };
      await a.endpoints.create(endpoint, 50);
      const take = (storage: Storage, now: number) => storage.outbox.takeRateBudget!('ep_rated', 3, now);
      const second = T0 + 5_000;
      const answers = await Promise.all(Array.from({ length: 10 }, (_, index) => take(index % 2 ? a : b, second + index * 10)));
      expect(answers.filter((answer) => answer.admitted)).toHaveLength(3);
      for (const answer of answers) expect(answer.windowEnd).toBe(second + 1_000);
      expect(answers.filter((answer) => answer.admitted && answer.exhausted)).toHaveLength(1);
      expect(answers.filter((answer) => !answer.admitted).every((answer) => answer.exhausted)).toBe(true);
      // A caller whose clock lags a second counts against the newer window.
      expect(await take(a, second - 500)).toMatchObject({ admitted: false });
      // The next second has a whole budget again.
      expect(await take(b, second + 1_000)).toEqual({ admitted: true, windowEnd: second + 2_000, exhausted: false });
      // A deleted endpoint has no budget (its row goes with it) and admits nothing.
      expect(await a.endpoints.delete('t', 'ep_rated', T0)).toBe(true);
      expect(await take(a, second + 3_000)).toMatchObject({ admitted: false });
      expect(
        await withClient(
          async (client) => (await client.query(`SELECT count(*)::int AS n FROM ${pg.escapeIdentifier(schema)}.webhook_rate_budgets`)).rows[0].n,
        ),
      ).toBe(0);
    });

    it('wakes watchers on another storage when a create queues deliveries (NOTIFY in the create)', async () => {
      fresh();
      const [listening, writing] = await Promise.all([open(), open()]);
      const calls = vi.fn();
      const unwatch = listening.outbox.watch!(calls);
      // The first call says the listener is connected (and asks to look for work missed before).
      await vi.waitFor(() => expect(calls).toHaveBeenCalledTimes(1), { timeout: 10_000 });
      await writing.plants.create('t', plant(1n, 'a'), [delivery('d1')]);
      await vi.waitFor(() => expect(calls).toHaveBeenCalledTimes(2), { timeout: 10_000 });
      unwatch();
      unwatch();
    });

    it('wires watch into createPlantStore: a dispatcher that never polls still sends what another instance queued', async () => {
      fresh();
      const subscriptions = [{ url: 'https://receiver.example/hooks', secret: `whsec_${Buffer.alloc(24, 7).toString('base64')}` }];
      const sent: WebhookRequest[] = [];
      const storage = await postgresStorage(options());
      // Subscribed first, the probe shares the listener's connection with the dispatcher and hears when it is up.
      const probe = vi.fn();
      storage.outbox.watch!(probe);
      const sender = createPlantStore({
        storage,
        webhooks: {
          subscriptions,
          pollIntervalMs: 3_600_000,
          transport: { send: async (request) => (sent.push(request), { kind: 'delivered' as const, statusCode: 204 }) },
        },
      });
      const writer = createPlantStore({ storage: await postgresStorage(options()), webhooks: { subscriptions } });
      try {
        const gardener: Principal = { subject: 's', tenant: 't', scopes: ['plants:write'] };
        await vi.waitFor(() => expect(probe).toHaveBeenCalled(), { timeout: 10_000 });
        await writer.plants.create(gardener, { id: 9223372036854775807n, name: 'Ficus' });
        await vi.waitFor(() => expect(sent).toHaveLength(1), { timeout: 10_000 });
        expect(sent[0]!.body).toBe('{"id":9223372036854775807,"name":"Ficus"}');
      } finally {
        await Promise.all([sender.close(), writer.close()]);
      }
    });

    it('prunes one session at a time, and skips rows another transaction holds instead of waiting for them', async () => {
      const name = fresh();
      const storage = await open();
      for (const id of ['d1', 'd2', 'd3']) await storage.plants.create('t', plant(BigInt(id.slice(1)), id), [delivery(id, { createdAt: T0 })]);
      for (const claimed of await storage.outbox.claimDue({ owner: 'o', now: T0, leaseMs: 60_000, limit: 10 })) {
        await storage.outbox.recordAttempt(claimed.id, 'o', { at: T0, durationMs: 1, statusCode: 200 }, { status: 'delivered' });
      }
      const deliveries = `${pg.escapeIdentifier(name)}.${pg.escapeIdentifier('webhook_deliveries')}`;
      // The adapter's lock key: one per schema.
      const key = createHash('sha256').update(`plant-store prune of ${deliveries}`).digest().readBigInt64BE(0).toString();
      const prune = () => storage.outbox.prune({ olderThan: T0 + 1000, limit: 10 });
      await withClient(async (other) => {
        await other.query('BEGIN');
        await other.query('SELECT pg_advisory_xact_lock($1::bigint)', [key]);
        // Another instance is pruning: this one deletes nothing rather than wait.
        expect(await prune()).toBe(0);
        await other.query('COMMIT');
        await other.query('BEGIN');
        await other.query(`SELECT id FROM ${deliveries} WHERE id = 'd1' FOR UPDATE`);
        // d1 is held (a resend, say): the others go, d1 is not waited for.
        expect(await prune()).toBe(2);
        await other.query('COMMIT');
      });
      expect(await prune()).toBe(1);
      expect(await storage.outbox.list()).toEqual([]);
    });

    /** How often each table the service deletes from, and its TOAST table, were vacuumed by hand, from the statistics (a new session each time: no cached snapshot). */
    const vacuumCounts = (name: string) =>
      withClient(async (client) => {
        const { rows } = await client.query(
          `SELECT c.relname AS table, s.vacuum_count::int AS main, t.vacuum_count::int AS toast
           FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
           JOIN pg_stat_all_tables s ON s.relid = c.oid JOIN pg_stat_all_tables t ON t.relid = c.reltoastrelid
           WHERE n.nspname = $1 AND c.relname IN ('plants', 'webhook_deliveries', 'webhook_attempts') ORDER BY c.relname`,
          [name],
        );
        return rows as { table: string; main: number; toast: number }[];
      });
    const pruneDelivered = async (storage: Storage, ids: string[]) => {
      for (const id of ids) await storage.plants.create('t', plant(BigInt(id.slice(1)), id), [delivery(id, { createdAt: T0 })]);
      for (const claimed of await storage.outbox.claimDue({ owner: 'o', now: T0, leaseMs: 60_000, limit: 100 })) {
        await storage.outbox.recordAttempt(claimed.id, 'o', { at: T0, durationMs: 1, statusCode: 200, response: 'ok' }, { status: 'delivered' });
      }
      expect(await storage.outbox.prune({ olderThan: T0 + 1000, limit: 100 })).toBe(ids.length);
    };

    it('reclaims the space of pruned and deleted rows with a plain VACUUM of the outbox tables, plants and their TOAST, whatever autovacuum does', async () => {
      const name = fresh();
      const storage = await open();
      await pruneDelivered(storage, ['d1', 'd2', 'd3']);
      const before = await vacuumCounts(name);
      expect(before.map((row) => row.table)).toEqual(['plants', 'webhook_attempts', 'webhook_deliveries']);
      await storage.outbox.reclaimSpace!();
      // The statistics reach other sessions a little later.
      await vi.waitFor(
        async () => {
          const after = await vacuumCounts(name);
          for (const [index, row] of after.entries()) {
            expect(row.main).toBeGreaterThan(before[index]!.main);
            expect(row.toast).toBeGreaterThan(before[index]!.toast);
          }
        },
        { timeout: 10_000, interval: 100 },
      );
    });

    describe('when the database is lost and comes back', () => {
      const target = new URL(TEST_DATABASE_URL);
      const proxied = async () => {
        const proxy = await startTcpProxy({ host: target.hostname || '127.0.0.1', port: Number(target.port || 5432) });
        proxies.push(proxy);
        const url = new URL(TEST_DATABASE_URL);
        url.hostname = '127.0.0.1';
        url.port = String(proxy.port);
        return { proxy, connectionString: url.toString() };
      };

      it('rejects calls with a StorageError while it is gone, recovers by itself, and loses nothing', async () => {
        fresh();
        const { proxy, connectionString } = await proxied();
        const storage = await open({ connectionString, connectTimeoutMs: 1000, queryTimeoutMs: 2000 });
        const direct = await open();
        await storage.plants.create('t', plant(1n, 'before'), [delivery('d1', { createdAt: T0 })]);
        // Several connections in the pool, idle when the cut comes: their death must not crash the process.
        await Promise.all(Array.from({ length: 5 }, () => storage.plants.get('t', 1n)));
        const woken = vi.fn();
        storage.outbox.watch!(woken);
        await vi.waitFor(() => expect(woken).toHaveBeenCalledTimes(1), { timeout: 10_000 });

        proxy.cut();
        await expect(storage.ping()).rejects.toBeInstanceOf(StorageError);
        await expect(storage.plants.get('t', 1n)).rejects.toBeInstanceOf(StorageError);
        await expect(storage.plants.create('t', plant(2n, 'lost'), [])).rejects.toBeInstanceOf(StorageError);
        await expect(storage.outbox.claimDue({ owner: 'o', now: T0, leaseMs: 1000, limit: 1 })).rejects.toBeInstanceOf(StorageError);
        await direct.plants.create('t', plant(3n, 'while cut'), [delivery('d3', { createdAt: T0 })]);

        proxy.restore();
        await expect(storage.ping()).resolves.toBeUndefined();
        expect(await storage.plants.list('t', { limit: 10 })).toEqual([
          { id: 1n, name: 'before' },
          { id: 3n, name: 'while cut' },
        ]);
        // The listener reconnects (and says so), then hears new deliveries again.
        // (Counted loosely: on a loaded machine a reconnect may take more than one try, each announcing itself.)
        await vi.waitFor(() => expect(woken.mock.calls.length).toBeGreaterThanOrEqual(2), { timeout: 20_000 });
        const heard = woken.mock.calls.length;
        await direct.plants.create('t', plant(4n, 'after'), [delivery('d4', { createdAt: T0 })]);
        await vi.waitFor(() => expect(woken.mock.calls.length).toBeGreaterThan(heard), { timeout: 10_000 });
        expect((await storage.outbox.claimDue({ owner: 'o', now: T0, leaseMs: 1000, limit: 10 })).map((d) => d.id).sort()).toEqual(['d1', 'd3', 'd4']);
      });

      it('rejects a VACUUM it cannot run with a StorageError, runs the next once the database is back, and never waits for one at close', async () => {
        fresh();
        const { proxy, connectionString } = await proxied();
        const storage = await open({ connectionString, connectTimeoutMs: 1000 });
        await pruneDelivered(storage, ['d1']);
        proxy.cut();
        await expect(storage.outbox.reclaimSpace!()).rejects.toMatchObject({ name: 'StorageError', message: expect.stringContaining('vacuum') });
        proxy.restore();
        await expect(storage.outbox.reclaimSpace!()).resolves.toBeUndefined();
        // A VACUUM whose connection hangs: close() drops it rather than wait, and the call ends without an error.
        proxy.stall();
        const hanging = storage.outbox.reclaimSpace!();
        await storage.close();
        await expect(hanging).resolves.toBeUndefined();
        await expect(storage.outbox.reclaimSpace!()).rejects.toBeInstanceOf(StorageError);
      });

      it('has the background pruner vacuum after a run that deleted rows; a VACUUM that fails is logged once, and the next run vacuums', async () => {
        const name = fresh();
        const storage = await open();
        const { proxy, connectionString } = await proxied();
        const gone = await open({ connectionString, connectTimeoutMs: 1000 });
        proxy.cut();
        // The first VACUUM goes through a connection to a database that is gone, the next ones to the real one.
        let reclaims = 0;
        const outbox = new Proxy(storage.outbox, {
          get: (target, property) =>
            property === 'reclaimSpace'
              ? (options?: ReclaimSpaceOptions) => (reclaims++ === 0 ? gone : storage).outbox.reclaimSpace!(options)
              : bound(target, property),
        });
        const warnings: string[] = [];
        const logger = { ...silentLogger, warn: (message: string) => void warnings.push(message) };
        const subscriptions = [{ url: 'https://receiver.example/hooks', secret: `whsec_${Buffer.alloc(24, 7).toString('base64')}` }];
        const transport = { send: async () => ({ kind: 'delivered' as const, statusCode: 204 }) };
        const store = createPlantStore({
          storage: { ...storage, outbox },
          logger,
          webhooks: { subscriptions, transport, retentionMs: 1, pruneIntervalMs: 20 },
        });
        try {
          const gardener: Principal = { subject: 's', tenant: 't', scopes: ['plants:write'] };
          const before = await vacuumCounts(name);
          await store.plants.create(gardener, { id: 1, name: 'Fern' });
          await vi.waitFor(() => expect(warnings.filter((warning) => warning.includes('reclaiming'))).toHaveLength(1), { timeout: 10_000 });
          await store.plants.create(gardener, { id: 2, name: 'Ivy' });
          await vi.waitFor(() => expect(reclaims).toBe(2), { timeout: 10_000 });
          await vi.waitFor(async () => expect((await vacuumCounts(name)).map((row) => row.main)).toEqual(before.map((row) => row.main + 1)), {
            timeout: 10_000,
            interval: 100,
          });
          expect(warnings).toEqual([expect.stringContaining('reclaiming the space of pruned webhook deliveries failed')]);
        } finally {
          await store.close();
        }
      });

      it('times out when the network silently drops everything, and never lends out a connection left waiting', async () => {
        fresh();
        const { proxy, connectionString } = await proxied();
        const storage = await open({ connectionString, connectTimeoutMs: 500, queryTimeoutMs: 500, poolSize: 1 });
        await storage.plants.create('t', plant(1n, 'kept'), []);

        proxy.stall();
        // The one pooled connection waits for an answer that never comes: the client-side timeout ends the call.
        await expect(storage.plants.get('t', 1n)).rejects.toBeInstanceOf(StorageError);
        // A new connection gets no answer either: the connect timeout ends the call.
        await expect(storage.ping()).rejects.toBeInstanceOf(StorageError);

        proxy.restore();
        // The stalled connection is still stalled; had the pool kept it, this would time out too.
        await expect(storage.ping()).resolves.toBeUndefined();
        expect(await storage.plants.get('t', 1n)).toEqual({ id: 1n, name: 'kept' });
      });

      it('fails to open with a StorageError naming the database (never its password) when it is unreachable', async () => {
        fresh();
        const { proxy, connectionString } = await proxied();
        proxy.cut();
        const url = new URL(connectionString);
        url.password = 'hunter2';
        const opening = postgresStorage(options({ connectionString: url.toString(), connectTimeoutMs: 1000 }));
        await expect(opening).rejects.toBeInstanceOf(StorageError);
        const error = (await opening.catch((caught: unknown) => caught)) as StorageError;
        expect(error.message).toContain(`127.0.0.1:${proxy.port}`);
        expect(error.message).not.toContain('hunter2');
      });
    });

    it('rejects invalid options with a ConfigurationError naming the option', async () => {
      for (const [name, extra] of [
        ['poolSize', { poolSize: 0 }],
        ['connectTimeoutMs', { connectTimeoutMs: 1.5 }],
        ['queryTimeoutMs', { queryTimeoutMs: -1 }],
        ['schema', { schema: '' }],
      ] as const) {
        const error = await postgresStorage(options(extra)).catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(ConfigurationError);
        expect((error as ConfigurationError).setting).toBe(name);
      }
    });

    it('treats a tag filter PostgreSQL cannot store (U+0000) as matching nothing, not as a storage failure', async () => {
      fresh();
      const storage = await open();
      await storage.plants.create('t', plant(1n, 'a', 'x'), []);
      expect(await storage.plants.list('t', { tags: ['\u0000'], limit: 10 })).toEqual([]);
      expect((await storage.plants.list('t', { tags: ['x', 'a\u0000'], limit: 10 })).map((p) => p.id)).toEqual([1n]);
      expect(await storage.plants.idAtOffset('t', { tags: ['\u0000'], offset: 0 })).toBeUndefined();
    });
  });
});

/** `target[property]`, bound to `target` when it is a method (for a Proxy that replaces one member). */
function bound(target: object, property: string | symbol): unknown {
  const value: unknown = Reflect.get(target, property);
  return typeof value === 'function' ? value.bind(target) : value;
}
