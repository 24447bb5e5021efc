import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { StorageError } from '@plant-store/core';
import type { NewDelivery, Storage } from '@plant-store/core/adapter';
import { runNodeScript, spawnNodeScript } from '../../../test/support/node-script.js';
import { inspectSqliteFile, migrationsBefore, queryPlanOf } from './sqlite-file.test-support.js';
import { migrate } from './migrations/migrate.js';
import { MIGRATIONS } from './migrations/migrations.js';
import { PRUNABLE } from './outbox-queries.js';
import { sqliteStorage } from './sqlite-storage.js';

const folder = mkdtempSync(join(tmpdir(), 'plant-store-sqlite-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));
let files = 0;
const freshPath = () => join(folder, `test-${files++}.db`);

const opened: Storage[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((storage) => storage.close()));
});
const open = async (path: string) => {
  const storage = await sqliteStorage({ path });
  opened.push(storage);
  return storage;
};

const T0 = 1_700_000_000_000;
const delivery = (id: string, createdAt = T0): NewDelivery => ({
  id,
  tenant: 't',
  endpointId: 'sub_receiver',
  eventType: 'plant.created',
  payload: `{"id":9223372036854775807,"name":"${id}"}`,
  createdAt,
});

describe('deleting a plant that is not there', () => {
  it('answers false without the write lock, while another connection holds it', async () => {
    const path = freshPath();
    const storage = await sqliteStorage({ path, busyTimeoutMs: 50 });
    opened.push(storage);
    await storage.plants.create('t', { id: 1n, name: 'kept' }, []);
    const other = new BetterSqlite3(path);
    other.exec('BEGIN IMMEDIATE');
    try {
      await expect(storage.plants.delete('t', 2n, { eventType: 'plant.deleted', payload: '{"id":2}', createdAt: T0 })).resolves.toBe(false);
      // A plant that is there still needs the lock, so this one waits and fails.
      await expect(storage.plants.delete('t', 1n)).rejects.toBeInstanceOf(StorageError);
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    await expect(storage.plants.delete('t', 1n)).resolves.toBe(true);
  });
});

describe('creates in one turn of the event loop (group commit)', () => {
  const plant = (id: number, name = `plant ${id}`) => ({ id: BigInt(id), name });
  const endpointEvent = (id: number) => ({ eventType: 'plant.created' as const, payload: `{"id":${id}}`, createdAt: T0 });
  /** Bytes the creates added to the write-ahead log (few writes: nothing checkpoints it meanwhile). */
  const logGrowth = async (createAll: (storage: Storage) => Promise<unknown>) => {
    const path = freshPath();
    const storage = await open(path);
    const before = statSync(`${path}-wal`).size;
    await createAll(storage);
    return statSync(`${path}-wal`).size - before;
  };

  it('commit together: each answers as alone, a repeated id in the same group finds the first, and they share the log pages', async () => {
    const path = freshPath();
    const storage = await open(path);
    const answers = await Promise.all([1, 2, 3, 1, 4].map((id, index) => storage.plants.create('t', plant(id, `name ${index}`), [delivery(`msg_${index}`)])));
    expect(answers).toEqual([
      { created: true, plant: { id: 1n, name: 'name 0' } },
      { created: true, plant: { id: 2n, name: 'name 1' } },
      { created: true, plant: { id: 3n, name: 'name 2' } },
      { created: false, plant: { id: 1n, name: 'name 0' } },
      { created: true, plant: { id: 4n, name: 'name 4' } },
    ]);
    // Nothing is queued for the repeated id: its plant was not created.
    expect((await storage.outbox.list())!.map((queued) => queued.id).sort()).toEqual(['msg_0', 'msg_1', 'msg_2', 'msg_4']);
  });

  it('share the pages they write to the log', async () => {
    const ids = Array.from({ length: 16 }, (_, index) => index + 1);
    const alone = await logGrowth(async (storage) => {
      for (const id of ids) await storage.plants.create('t', plant(id), [delivery(`msg_${id}`)]);
    });
    const together = await logGrowth((storage) => Promise.all(ids.map((id) => storage.plants.create('t', plant(id), [delivery(`msg_${id}`)]))));
    expect(together).toBeGreaterThan(0);
    expect(together).toBeLessThan(alone / 4);
  });

  it('fail one by one: a plant whose own row is refused fails alone, the others of its group are stored', async () => {
    const path = freshPath();
    const storage = await open(path);
    const other = new BetterSqlite3(path);
    other.exec("CREATE TRIGGER refuse_poison BEFORE INSERT ON plants WHEN NEW.name = 'poison' BEGIN SELECT RAISE(ABORT, 'poisoned plant'); END");
    other.close();
    const outcomes = await Promise.allSettled(
      [plant(1), plant(2, 'poison'), plant(3)].map((each) => storage.plants.create('t', each, [], endpointEvent(Number(each.id)))),
    );
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const refused = (outcomes[1] as PromiseRejectedResult).reason;
    expect(refused).toBeInstanceOf(StorageError);
    expect(refused.message).toBe('sqlite storage could not create the plant');
    expect(refused.cause.message).toBe('poisoned plant');
    expect(inspectSqliteFile(path, (db) => db.prepare('SELECT id FROM plants ORDER BY id').pluck().all())).toEqual([1, 3]);
  });

  it('deletes commit together too: a repeated id in the same group is gone for the second, and each event queues its deliveries', async () => {
    const path = freshPath();
    const storage = await open(path);
    const subscribed = {
      id: 'ep_deletes',
      tenant: 't',
      url: 'https://deletes.example/hook',
      eventTypes: ['plant.deleted' as const],
      secret: 'whsec_c2VjcmV0',
      createdAt: T0,
    };
    await storage.endpoints!.create(subscribed, 50);
    for (const id of [1, 2, 3]) await storage.plants.create('t', plant(id), []);
    const deleted = { eventType: 'plant.deleted' as const, createdAt: T0 };
    const answers = await Promise.all([
      storage.plants.delete('t', 1n, { ...deleted, payload: '{"id":1}' }),
      storage.plants.delete('t', 2n),
      storage.plants.delete('t', 1n, { ...deleted, payload: '{"id":1}' }),
      storage.plants.delete('t', 9n),
      storage.plants.delete('t', 3n, { ...deleted, payload: '{"id":3}' }),
    ]);
    expect(answers).toEqual([true, true, false, false, true]);
    expect(inspectSqliteFile(path, (db) => db.prepare('SELECT count(*) FROM plants').pluck().get())).toBe(0);
    expect((await storage.outbox.list())!.map((queued) => queued.payload).sort()).toEqual(['{"id":1}', '{"id":3}']);
  });

  it('are written by close, when they still wait for their turn', async () => {
    const path = freshPath();
    const storage = await sqliteStorage({ path });
    const creates = [1, 2, 3].map((id) => storage.plants.create('t', plant(id), []));
    await storage.close();
    await expect(Promise.all(creates)).resolves.toHaveLength(3);
    expect(inspectSqliteFile(path, (db) => db.prepare('SELECT count(*) FROM plants').pluck().get())).toBe(3);
  });
});

describe('sqliteStorage', () => {
  it('stores ids as exact 64-bit integers and finds everything again after reopening the file', async () => {
    const path = freshPath();
    const first = await open(path);
    await first.plants.create('t', { id: 9223372036854775807n, name: 'max' }, [delivery('d1')]);
    await first.plants.create('t', { id: -9223372036854775808n, name: 'min', tag: 'x' }, []);
    await first.plants.create('t', { id: 9007199254740993n, name: '2^53+1' }, []);
    await first.close();

    // INTEGER storage (not text or a double), digit for digit.
    const rows = inspectSqliteFile(path, (db) => db.prepare('SELECT typeof(id) AS type, CAST(id AS TEXT) AS digits FROM plants ORDER BY id').all());
    expect(rows).toEqual([
      { type: 'integer', digits: '-9223372036854775808' },
      { type: 'integer', digits: '9007199254740993' },
      { type: 'integer', digits: '9223372036854775807' },
    ]);

    const second = await open(path);
    expect(await second.plants.get('t', 9223372036854775807n)).toEqual({ id: 9223372036854775807n, name: 'max' });
    expect(await second.plants.get('t', 9007199254740993n)).toEqual({ id: 9007199254740993n, name: '2^53+1' });
    expect((await second.plants.list('t', { limit: 10 })).map((p) => p.id)).toEqual([-9223372036854775808n, 9007199254740993n, 9223372036854775807n]);
    expect(await second.outbox.get('d1')).toMatchObject({ status: 'pending', nextAttemptAt: T0, payload: delivery('d1').payload });
    expect((await second.outbox.claimDue({ owner: 'o', now: T0, leaseMs: 1000, limit: 5 })).map((d) => d.id)).toEqual(['d1']);
  });

  it('applies migrations once: opening the same file again changes nothing', async () => {
    const path = freshPath();
    await (await open(path)).plants.create('t', { id: 1n, name: 'kept' }, []);
    for (const storage of opened.splice(0)) await storage.close();
    const schema = () =>
      inspectSqliteFile(path, (db) => db.prepare('SELECT type, name, sql FROM sqlite_master ORDER BY name').all() as { type: string; name: string }[]);
    const before = schema();
    const again = await open(path);
    expect(await again.plants.get('t', 1n)).toEqual({ id: 1n, name: 'kept' });
    await again.close();
    expect(schema()).toEqual(before);
    expect(inspectSqliteFile(path, (db) => db.prepare('SELECT name FROM kysely_migration').pluck().all())).toEqual(Object.keys(MIGRATIONS));
    expect(before.filter((entry) => entry.type === 'table').map((entry) => entry.name)).toEqual(
      expect.arrayContaining(['plants', 'webhook_attempts', 'webhook_deliveries']),
    );
  });

  it('uses write-ahead logging and STRICT tables', async () => {
    const path = freshPath();
    const storage = await open(path);
    await storage.plants.create('t', { id: 1n, name: 'a' }, []);
    expect(inspectSqliteFile(path, (db) => db.pragma('journal_mode', { simple: true }))).toBe('wal');
    expect(existsSync(`${path}-wal`)).toBe(true);
    const strict = inspectSqliteFile(path, (db) =>
      db.prepare("SELECT name FROM pragma_table_list WHERE strict = 1 AND schema = 'main' ORDER BY name").pluck().all(),
    );
    expect(strict).toEqual(['plants', 'portal_links', 'webhook_attempts', 'webhook_deliveries', 'webhook_endpoints']);
  });

  it('creates the folder of a path that does not exist yet', async () => {
    const path = join(folder, 'deep', 'er', 'plant-store.db');
    const storage = await open(path);
    await storage.plants.create('t', { id: 1n, name: 'a' }, []);
    expect(existsSync(path)).toBe(true);
  });

  it('supports :memory: (nothing on disk, nothing shared between storages)', async () => {
    const a = await open(':memory:');
    const b = await open(':memory:');
    await a.plants.create('t', { id: 1n, name: 'a' }, [delivery('d1')]);
    expect(await a.plants.get('t', 1n)).toEqual({ id: 1n, name: 'a' });
    expect(await b.plants.get('t', 1n)).toBeUndefined();
    await expect(a.ping()).resolves.toBeUndefined();
  });

  it('two storages on one file (as two processes would) never claim the same delivery while its lease holds', async () => {
    const path = freshPath();
    const a = await open(path);
    const b = await open(path);
    const ids = Array.from({ length: 30 }, (_, i) => `d${String(i).padStart(2, '0')}`);
    for (let i = 0; i < ids.length; i += 3) {
      await (i % 2 ? a : b).plants.create(
        't',
        { id: BigInt(i), name: 'p' },
        ids.slice(i, i + 3).map((id) => delivery(id, T0 + i)),
      );
    }
    const claimedBy = new Map<string, string>();
    for (let round = 0; round < 20; round++) {
      const [fromA, fromB] = await Promise.all([
        a.outbox.claimDue({ owner: 'a', now: T0 + 100, leaseMs: 60_000, limit: 2 }),
        b.outbox.claimDue({ owner: 'b', now: T0 + 100, leaseMs: 60_000, limit: 2 }),
      ]);
      for (const [owner, claimed] of [
        ['a', fromA],
        ['b', fromB],
      ] as const) {
        for (const { id } of claimed) {
          expect(claimedBy.get(id), `${id} claimed twice`).toBeUndefined();
          claimedBy.set(id, owner);
        }
      }
    }
    expect([...claimedBy.keys()].sort()).toEqual(ids);
    // Each side sees the other's lease: b cannot record a's delivery.
    const ofA = [...claimedBy].find(([, owner]) => owner === 'a')![0];
    expect(await b.outbox.recordAttempt(ofA, 'b', { at: T0, durationMs: 1, statusCode: 200 }, { status: 'delivered' })).toBe(false);
    expect(await a.outbox.recordAttempt(ofA, 'a', { at: T0, durationMs: 1, statusCode: 200 }, { status: 'delivered' })).toBe(true);
    expect((await b.outbox.get(ofA))?.status).toBe('delivered');
  });

  it('two processes opening a new file at once migrate it once, write concurrently, and never claim the same delivery', async () => {
    const path = freshPath();
    const workers = [startWorker(path, 'alpha', 0), startWorker(path, 'beta', 1000)];
    // A real barrier: both processes have loaded the code before either opens the file.
    await Promise.all(workers.map((worker) => worker.ready));
    for (const worker of workers) worker.go();
    const [alpha, beta] = await Promise.all(workers.map((worker) => worker.claimed));
    expect(alpha!.filter((id) => beta!.includes(id))).toEqual([]);
    const all = [...alpha!, ...beta!].sort();
    expect(all).toHaveLength(2 * WORKER_PLANTS * 2);
    expect(new Set(all).size).toBe(all.length);

    const storage = await open(path);
    expect(await storage.plants.list('t', { limit: 1000 })).toHaveLength(2 * WORKER_PLANTS);
    const delivered = (await storage.outbox.list({ status: 'delivered', limit: 1000 }))!;
    expect(delivered).toHaveLength(all.length);
    expect(delivered.every((d) => d.attemptCount === 1)).toBe(true);
    expect(inspectSqliteFile(path, (db) => db.prepare('SELECT count(*) FROM kysely_migration').pluck().get())).toBe(Object.keys(MIGRATIONS).length);
  });

  it('sixteen processes opening one new file at once all start (busy start-up statements are retried), round after round', async () => {
    const openers = Array.from({ length: OPENERS }, () => startOpener());
    try {
      expect(await Promise.all(openers.map((opener) => opener.next()))).toEqual(openers.map(() => 'ready'));
      for (let round = 0; round < OPENER_ROUNDS; round++) {
        const path = freshPath();
        // Every process has loaded the code and waits on stdin: the writes below start them together.
        openers.forEach((opener, index) => opener.send({ path, id: index }));
        const answers = await Promise.all(openers.map((opener) => opener.next()));
        expect(
          answers.filter((answer) => answer !== 'ok'),
          `round ${round}`,
        ).toEqual([]);
        expect(inspectSqliteFile(path, (db) => db.prepare('SELECT count(*) FROM plants').pluck().get())).toBe(OPENERS);
        expect(inspectSqliteFile(path, (db) => db.prepare('SELECT count(*) FROM kysely_migration').pluck().get())).toBe(Object.keys(MIGRATIONS).length);
        expect(inspectSqliteFile(path, (db) => db.pragma('journal_mode', { simple: true }))).toBe('wal');
      }
    } finally {
      for (const opener of openers) opener.stop();
    }
    // Sixteen processes loading the TypeScript sources take a while on two busy cores.
  }, 90_000);

  it('reopens an up-to-date file in a new process and serves plants, webhook claims and operator queries', async () => {
    const path = freshPath();
    const first = await open(path);
    await first.plants.create('t', { id: 1n, name: 'kept' }, []);
    for (const storage of opened.splice(0)) await storage.close();
    const script = `
      const { sqliteStorage } = await import(${JSON.stringify(storageModule)});
      const storage = await sqliteStorage({ path: ${JSON.stringify(path)} });
      const delivery = { id: 'd1', tenant: 't', endpointId: 'sub_a', eventType: 'plant.created', payload: '{}', createdAt: 1 };
      await storage.plants.create('t', { id: 2n, name: 'new' }, [delivery]);
      const listed = await storage.plants.list('t', { limit: 10 });
      const [claimed] = await storage.outbox.claimDue({ owner: 'o', now: 2, leaseMs: 1000, limit: 5 });
      await storage.outbox.release([claimed.id], 'o');
      await storage.outbox.claimDue({ owner: 'o', now: 2, leaseMs: 1000, limit: 5 });
      await storage.outbox.recordAttempt('d1', 'o', { at: 2, durationMs: 1, statusCode: 200 }, { status: 'delivered' });
      const got = await storage.outbox.get('d1');
      const delivered = await storage.outbox.list({ status: 'delivered' });
      const ofTenant = await storage.outbox.list({ tenant: 't', limit: 10 });
      const resent = await storage.outbox.requeue({ id: 'd1', from: 'any' }, 3);
      await storage.close();
      process.stdout.write([listed.map((plant) => plant.name).join(','), got.status, got.attemptCount, delivered.length, ofTenant.length, resent].join(' '));
    `;
    const { code, stdout, stderr } = await runNodeScript(script);
    expect(stderr).toBe('');
    // Tenant listings leave out operator subscriptions ('sub_a' is one).
    expect({ code, stdout }).toEqual({ code: 0, stdout: 'kept,new delivered 1 1 0 1' });
  });

  it('refuses a file migrated by a newer version (a migration it does not know)', async () => {
    const path = freshPath();
    await open(path);
    for (const storage of opened.splice(0)) await storage.close();
    const db = new BetterSqlite3(path);
    db.prepare("INSERT INTO kysely_migration (name, timestamp) VALUES ('999-from-the-future', '2100-01-01T00:00:00.000Z')").run();
    db.close();
    const failure = await sqliteStorage({ path }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(StorageError);
    expect(String((failure as StorageError).cause)).toContain('999-from-the-future');
  });

  describe('retention and file size', () => {
    /** Queues `count` deliveries (one plant each) created at T0, then delivers them all with attempts ending at T0 + 10. */
    const deliverMany = async (storage: Storage, count: number, firstPlant = 0) => {
      for (let i = 0; i < count; i++) {
        await storage.plants.create('t', { id: BigInt(firstPlant + i), name: `p${i}` }, [delivery(`d${firstPlant + i}`)]);
      }
      for (;;) {
        const claimed = await storage.outbox.claimDue({ owner: 'o', now: T0 + 5, leaseMs: 60_000, limit: 500 });
        if (claimed.length === 0) break;
        for (const { id } of claimed) {
          await storage.outbox.recordAttempt(id, 'o', { at: T0 + 5, durationMs: 5, statusCode: 200, error: 'x'.repeat(200) }, { status: 'delivered' });
        }
      }
    };

    it('creates new files with incremental auto-vacuum', async () => {
      const path = freshPath();
      await open(path);
      expect(inspectSqliteFile(path, (db) => db.pragma('auto_vacuum', { simple: true }))).toBe(2);
    });

    it('converts a file created before incremental auto-vacuum at its next start, keeping its data', async () => {
      const path = freshPath();
      const db = new BetterSqlite3(path);
      db.pragma('auto_vacuum = NONE');
      db.pragma('journal_mode = WAL');
      // The migrations before the one that turns incremental auto-vacuum on.
      await migrate(db, migrationsBefore('004'));
      db.prepare("INSERT INTO plants (tenant, id, name) VALUES ('t', 1, 'old')").run();
      db.close();
      expect(inspectSqliteFile(path, (file) => file.pragma('auto_vacuum', { simple: true }))).toBe(0);

      const storage = await open(path);
      expect(await storage.plants.get('t', 1n)).toEqual({ id: 1n, name: 'old' });
      expect(inspectSqliteFile(path, (file) => file.pragma('auto_vacuum', { simple: true }))).toBe(2);
      expect(inspectSqliteFile(path, (file) => file.prepare('SELECT name FROM kysely_migration').pluck().all())).toEqual(Object.keys(MIGRATIONS));
    });

    it('hands the pages a prune frees back to the file system on reclaimSpace, and finds what to prune through an index', async () => {
      const path = freshPath();
      const storage = await open(path);
      await deliverMany(storage, 2_000);
      const pages = () => inspectSqliteFile(path, (db) => Number(db.pragma('page_count', { simple: true })));
      const free = () => inspectSqliteFile(path, (db) => Number(db.pragma('freelist_count', { simple: true })));
      const full = pages();
      let pruned = 0;
      for (let batch; (batch = await storage.outbox.prune({ olderThan: T0 + 100, limit: 1000 })) > 0; ) pruned += batch;
      expect(pruned).toBe(2_000);
      // The prune's transactions only delete: the freed pages stay in the file, free, until reclaimed.
      expect(free()).toBeGreaterThan(full / 2);
      await storage.outbox.reclaimSpace!();
      expect(pages()).toBeLessThan(full / 2);
      expect(free()).toBe(0);
      // The prune's own query (parked deliveries are finished too), on the partial index of finished ones.
      expect(queryPlanOf(path, PRUNABLE, [1, 10]).join('\n')).toContain('webhook_deliveries_finished');
    });
  });

  describe('reclaimSpace', () => {
    const freedFile = async (rows: number) => {
      const path = freshPath();
      const storage = await open(path);
      for (let i = 0; i < rows; i += 100) {
        const batch = Array.from({ length: 100 }, (_, j) => ({ ...delivery(`d${i + j}`), payload: `{"id":${i + j},"name":"${'x'.repeat(500)}"}` }));
        await storage.plants.create('t', { id: BigInt(i), name: 'p' }, batch);
      }
      for (;;) {
        const claimed = await storage.outbox.claimDue({ owner: 'o', now: T0, leaseMs: 60_000, limit: 500 });
        if (claimed.length === 0) break;
        for (const { id } of claimed) await storage.outbox.recordAttempt(id, 'o', { at: T0, durationMs: 1, statusCode: 200 }, { status: 'delivered' });
      }
      while ((await storage.outbox.prune({ olderThan: T0 + 100, limit: 1000 })) > 0);
      return { path, storage, free: () => inspectSqliteFile(path, (db) => Number(db.pragma('freelist_count', { simple: true }))) };
    };

    it('works in steps of a few pages, handing the event loop back between them', async () => {
      const { storage, free } = await freedFile(2_000);
      const before = free();
      expect(before).toBeGreaterThan(200);
      // Work queued while the reclaim runs (a request arriving) gets its turn before the reclaim ends.
      const seen: number[] = [];
      let reclaiming = true;
      const watch = () => {
        if (!reclaiming) return;
        seen.push(free());
        setImmediate(watch);
      };
      setImmediate(watch);
      await storage.outbox.reclaimSpace!();
      reclaiming = false;
      expect(free()).toBe(0);
      const during = seen.filter((count) => count > 0 && count < before);
      expect(during.length).toBeGreaterThan(1);
    });

    it('stops early once its signal is aborted, leaving the rest for the next call; does nothing on a file with nothing free', async () => {
      const { storage, free } = await freedFile(2_000);
      const before = free();
      const stop = new AbortController();
      setImmediate(() => stop.abort());
      await storage.outbox.reclaimSpace!({ signal: stop.signal });
      expect(free()).toBeGreaterThan(0);
      expect(free()).toBeLessThan(before);
      await storage.outbox.reclaimSpace!();
      expect(free()).toBe(0);
      await storage.outbox.reclaimSpace!();
      expect(free()).toBe(0);
    });
  });

  describe('errors', () => {
    it('wraps driver errors in StorageError with the driver error as cause once closed', async () => {
      const storage = await open(freshPath());
      await storage.close();
      const failure = await storage.plants.get('t', 1n).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(StorageError);
      expect((failure as StorageError).message).toMatch(/sqlite storage could not read the plant/);
      expect((failure as StorageError).cause).toBeInstanceOf(Error);
      const viaKysely = await storage.outbox.list().catch((error: unknown) => error);
      expect(viaKysely).toBeInstanceOf(StorageError);
      expect((viaKysely as StorageError).cause).toBeInstanceOf(Error);
      await expect(storage.ping()).rejects.toBeInstanceOf(StorageError);
    });

    it('rejects with a StorageError when the file is not a database', async () => {
      const path = freshPath();
      writeFileSync(path, 'this is not an SQLite database, just some text long enough to have a header....');
      const failure = await sqliteStorage({ path }).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(StorageError);
      expect((failure as StorageError).message).toContain(path);
      expect((failure as StorageError).cause).toBeInstanceOf(Error);
    });

    it('rejects with a StorageError when the path is a folder', async () => {
      const failure = await sqliteStorage({ path: folder }).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(StorageError);
      expect((failure as StorageError).cause).toBeDefined();
    });

    it('rolls back a create whose delivery violates a constraint, leaving the storage usable', async () => {
      const storage = await open(freshPath());
      const failure = await storage.plants.create('t', { id: 1n, name: 'a' }, [delivery('x'), delivery('x')]).catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(StorageError);
      expect(String((failure as StorageError).cause)).toMatch(/UNIQUE/);
      expect(await storage.plants.get('t', 1n)).toBeUndefined();
      expect((await storage.plants.create('t', { id: 1n, name: 'a' }, [delivery('x')])).created).toBe(true);
    });
  });
});

const WORKER_PLANTS = 40;
const storageModule = pathToFileURL(fileURLToPath(new URL('./sqlite-storage.ts', import.meta.url))).href;

const OPENERS = 16;
// Without the retry, a round failed with SQLITE_BUSY about once in six on 2 cores.
const OPENER_ROUNDS = 16;

/**
 * A Node process that, for every line `{ path, id }` on stdin, opens the
 * storage at `path`, creates plant `id`, closes it and answers `ok` (or the
 * error) on a line of its own. It says `ready` once loaded, so the parent can
 * start several of them on one new file at the same moment.
 */
function startOpener() {
  const script = `
    import { createInterface } from 'node:readline';
    import { sqliteStorage } from ${JSON.stringify(storageModule)};
    // Everything a new file needs is loaded up front (by opening an in-memory
    // database), so the processes reach the file together in every round.
    await (await sqliteStorage({ path: ':memory:' })).close();
    process.stdout.write('ready\\n');
    for await (const line of createInterface({ input: process.stdin })) {
      const { path, id } = JSON.parse(line);
      try {
        const storage = await sqliteStorage({ path });
        await storage.plants.create('t', { id: BigInt(id), name: 'p' }, []);
        await storage.close();
        process.stdout.write('ok\\n');
      } catch (error) {
        process.stdout.write(JSON.stringify(error.message + ' / ' + error.cause) + '\\n');
      }
    }
  `;
  const child = spawnNodeScript(script);
  const lines: string[] = [];
  const waiting: ((line: string) => void)[] = [];
  let stderr = '';
  let buffered = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    buffered += chunk;
    for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 1);
      const waiter = waiting.shift();
      if (waiter) waiter(line);
      else lines.push(line);
    }
  });
  child.on('exit', (code) => {
    for (const waiter of waiting.splice(0)) waiter(`exited with ${code}: ${stderr}`);
  });
  return {
    /** The next line the process writes (`ready`, `ok` or an error). */
    next: () => new Promise<string>((resolve) => (lines.length > 0 ? resolve(lines.shift()!) : waiting.push(resolve))),
    send: (task: { path: string; id: number }) => child.stdin.write(`${JSON.stringify(task)}\n`),
    stop: () => child.stdin.end(),
  };
}

/**
 * A separate Node process that opens the file, creates plants with two
 * deliveries each, then claims and delivers until nothing is left, and
 * prints the delivery ids it claimed. It says "ready" once loaded and waits
 * for "go" on stdin, so two workers open (and migrate) a new file at once.
 */
function startWorker(path: string, owner: string, firstId: number) {
  const script = `
    import { sqliteStorage } from ${JSON.stringify(storageModule)};
    process.stdout.write('ready\\n');
    await new Promise((resolve) => process.stdin.once('data', resolve));
    const storage = await sqliteStorage({ path: ${JSON.stringify(path)} });
    for (let i = 0; i < ${WORKER_PLANTS}; i++) {
      const id = ${firstId} + i;
      const deliveries = ['a', 'b'].map((suffix) => ({
        id: 'd' + id + suffix, tenant: 't', endpointId: 'sub_' + suffix,
        eventType: 'plant.created', payload: '{}', createdAt: 1,
      }));
      await storage.plants.create('t', { id: BigInt(id), name: 'p' }, deliveries);
    }
    const claimed = [];
    for (;;) {
      const batch = await storage.outbox.claimDue({ owner: ${JSON.stringify(owner)}, now: 2, leaseMs: 600000, limit: 3 });
      if (batch.length === 0) break;
      for (const delivery of batch) {
        claimed.push(delivery.id);
        const attempt = { at: 2, durationMs: 1, statusCode: 200 };
        if (!(await storage.outbox.recordAttempt(delivery.id, ${JSON.stringify(owner)}, attempt, { status: 'delivered' }))) {
          throw new Error('lost the lease on ' + delivery.id);
        }
      }
    }
    await storage.close();
    process.stdout.write(JSON.stringify(claimed));
  `;
  const child = spawnNodeScript(script);
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', resolve);
  });
  const failure = (code: number | null) => new Error(`worker ${owner} exited with ${code}: ${stderr}`);
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      if (stdout.startsWith('ready\n')) resolve();
    });
    exited.then((code) => reject(failure(code)), reject);
  });
  const claimed = exited.then((code) => {
    if (code !== 0) throw failure(code);
    return JSON.parse(stdout.slice('ready\n'.length)) as string[];
  });
  // Awaited only after `ready`: keep an early failure from also surfacing as unhandled.
  claimed.catch(() => {});
  return { ready, claimed, go: () => child.stdin.end('go\n') };
}
