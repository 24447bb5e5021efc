// What the SQLite storage does when its files are taken away, replaced or
// made read-only: it never acknowledges a write the next start
// would not see, readiness says why, and a read-only database fails at start.
import { copyFileSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { StorageError } from '@plant-store/core';
import type { NewDelivery, Storage } from '@plant-store/core/adapter';
import { sqliteStorage } from '@plant-store/storage-sqlite';
import { makeReadOnly, type ReadOnlyPath } from '../support/read-only-path.js';

const folder = mkdtempSync(join(tmpdir(), 'plant-store-sqlite-files-'));
const readOnly: ReadOnlyPath[] = [];
const opened: Storage[] = [];
afterEach(async () => {
  for (const path of readOnly.splice(0)) path.restore();
  await Promise.all(opened.splice(0).map((storage) => storage.close()));
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

let files = 0;
const freshPath = () => join(folder, `store-${files++}.db`);
const open = async (path: string) => {
  const storage = await sqliteStorage({ path });
  opened.push(storage);
  return storage;
};
const removeFiles = (path: string) => {
  for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
};
const delivery = (id: string): NewDelivery => ({
  id,
  tenant: 't',
  endpointId: 'sub_receiver',
  eventType: 'plant.created',
  payload: '{}',
  createdAt: 1,
});

/** The rejection of `promise` (failing the test if it resolves). */
async function failure(promise: Promise<unknown>): Promise<StorageError> {
  const outcome = await promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  if (!('error' in outcome)) throw new Error(`expected a rejection, got ${String(outcome.value)}`);
  expect(outcome.error).toBeInstanceOf(StorageError);
  return outcome.error as StorageError;
}

describe('sqlite storage whose files change under it', () => {
  it('refuses writes and readiness once the files are deleted, and nothing it acknowledged is lost', async () => {
    const path = freshPath();
    const storage = await open(path);
    await storage.plants.create('t', { id: 1n, name: 'before' }, [delivery('d1')]);
    await expect(storage.ping()).resolves.toBeUndefined();

    removeFiles(path);
    const notReady = await failure(storage.ping());
    expect(notReady.message).toBe(
      `sqlite storage is not ready: the database file ${path} was deleted while open; ` +
        'what is written now would be lost at the next start (restart the service)',
    );
    const create = await failure(storage.plants.create('t', { id: 2n, name: 'after' }, []));
    expect(create.message).toMatch(new RegExp(`^sqlite storage could not create the plant: the database file ${path} was deleted while open`));
    expect((await failure(storage.plants.delete('t', 1n))).message).toMatch(/^sqlite storage could not delete the plant: .* was deleted/);
    const claim = storage.outbox.claimDue({ owner: 'o', now: 2, leaseMs: 1000, limit: 5 });
    expect((await failure(claim)).message).toMatch(/^sqlite storage could not claim due deliveries: .* was deleted/);
    await expect(storage.ping()).rejects.toThrow(/was deleted/);

    // After a restart on the same path, every write that was acknowledged is there (none was, after the deletion).
    await storage.close();
    const restarted = await open(path);
    expect(await restarted.plants.list('t', { limit: 10 })).toEqual([]);
    await expect(restarted.ping()).resolves.toBeUndefined();
  });

  it('refuses writes once the file is replaced by another one (a restored copy)', async () => {
    const path = freshPath();
    const storage = await open(path);
    await storage.plants.create('t', { id: 1n, name: 'kept' }, []);
    await storage.close();
    const reopened = await open(path);
    copyFileSync(path, `${path}.copy`);
    renameSync(`${path}.copy`, path);

    const notReady = await failure(reopened.ping());
    expect(notReady.message).toMatch(new RegExp(`^sqlite storage is not ready: the database file ${path} was replaced by another file while open`));
    await failure(reopened.plants.create('t', { id: 2n, name: 'lost' }, []));
    // Reads still answer (from the file it has open).
    expect(await reopened.plants.get('t', 1n)).toEqual({ id: 1n, name: 'kept' });
  });

  it('reports a deleted write-ahead log in readiness', async () => {
    const path = freshPath();
    const storage = await open(path);
    rmSync(`${path}-wal`);
    const notReady = await failure(storage.ping());
    expect(notReady.message).toMatch(new RegExp(`^sqlite storage is not ready: the write-ahead log ${path}-wal was deleted while open`));
  });

  it('refuses writes once the write-ahead log alone is deleted, and rolls them back', async () => {
    const path = freshPath();
    const storage = await open(path);
    await storage.plants.create('t', { id: 1n, name: 'acknowledged before' }, [delivery('d1')]);
    await storage.endpoints.create(
      {
        id: 'ep_1',
        tenant: 't',
        url: 'http://127.0.0.1:1/hook',
        eventTypes: ['plant.created'],
        secret: 'whsec_x',
        createdAt: 1,
      },
      50,
    );
    rmSync(`${path}-wal`);

    // No readiness probe first: the very next write is refused.
    for (let id = 2n; id <= 21n; id++) {
      const create = await failure(storage.plants.create('t', { id, name: 'after' }, [delivery(`d${id}`)]));
      expect(create.message).toBe(
        `sqlite storage could not create the plant: the write-ahead log ${path}-wal was deleted while open; ` +
          'what is written now would be lost at the next start (restart the service)',
      );
    }
    await failure(storage.plants.delete('t', 1n));
    await failure(storage.plants.delete('t', 1n, { eventType: 'plant.deleted', payload: '{}', createdAt: 2 }));
    await failure(storage.outbox.claimDue({ owner: 'o', now: 2, leaseMs: 1000, limit: 5 }));
    await failure(storage.endpoints.update('t', 'ep_1', { description: 'changed', updatedAt: 2 }));
    await expect(storage.ping()).rejects.toThrow(/write-ahead log .* was deleted while open/);

    // The database file as a crash now would leave it (no log at its path):
    // what was acknowledged before the deletion was copied into it at once.
    const crashCopy = freshPath();
    copyFileSync(path, crashCopy);
    const afterCrash = await open(crashCopy);
    expect(await afterCrash.plants.list('t', { limit: 100 })).toEqual([{ id: 1n, name: 'acknowledged before' }]);

    // Closing checkpoints the deleted log into the database file: what was
    // acknowledged before is kept, and nothing refused was committed.
    await storage.close();
    const restarted = await open(path);
    expect(await restarted.plants.list('t', { limit: 100 })).toEqual([{ id: 1n, name: 'acknowledged before' }]);
    expect((await restarted.outbox.list({ limit: 100 }))!.map((d) => [d.id, d.status])).toEqual([['d1', 'pending']]);
    expect((await restarted.endpoints.get('t', 'ep_1'))?.description).toBeUndefined();
  });

  it('refuses writes once the write-ahead log is replaced by another file', async () => {
    const path = freshPath();
    const storage = await open(path);
    await storage.plants.create('t', { id: 1n, name: 'kept' }, []);
    copyFileSync(`${path}-wal`, `${path}-wal.copy`);
    renameSync(`${path}-wal.copy`, `${path}-wal`);
    const create = await failure(storage.plants.create('t', { id: 2n, name: 'lost' }, []));
    expect(create.message).toMatch(new RegExp(`^sqlite storage could not create the plant: the write-ahead log ${path}-wal was replaced by another file`));
  });

  it('notices the database file alone replaced, by watching it, without a readiness probe', async () => {
    const path = freshPath();
    const storage = await open(path);
    await storage.plants.create('t', { id: 1n, name: 'kept' }, []);
    copyFileSync(path, `${path}.copy`);
    renameSync(`${path}.copy`, path);
    // The log is untouched, so only the watch tells; it reports once the event loop turns.
    let id = 2n;
    await vi.waitFor(async () => {
      await failure(storage.plants.create('t', { id: id++, name: 'x' }, []));
    });
    const create = await failure(storage.plants.create('t', { id: id++, name: 'x' }, []));
    expect(create.message).toMatch(new RegExp(`^sqlite storage could not create the plant: the database file ${path} was replaced by another file`));
  });

  it('reports a database file that is no longer writable in readiness', async (context) => {
    const path = freshPath();
    const storage = await open(path);
    const locked = makeReadOnly(path);
    if (typeof locked === 'string') return context.skip(locked);
    readOnly.push(locked);
    const notReady = await failure(storage.ping());
    expect(notReady.message).toMatch(new RegExp(`^sqlite storage is not ready: ${path} is not writable \\((EPERM|EACCES): `));
    locked.restore();
    await expect(storage.ping()).resolves.toBeUndefined();
  });

  it('notices a database whose folder was renamed (nothing is at its path any more)', async () => {
    const dir = join(folder, `moved-${files++}`);
    mkdirSync(dir);
    const path = join(dir, 'plants.db');
    const storage = await open(path);
    renameSync(dir, `${dir}-elsewhere`);
    expect((await failure(storage.ping())).message).toMatch(/was deleted while open/);
    await failure(storage.plants.create('t', { id: 1n, name: 'x' }, []));
  });
});

describe('sqlite storage on a read-only database', () => {
  it('rejects at start with a StorageError naming the read-only file and why', async (context) => {
    const path = freshPath();
    await (await open(path)).plants.create('t', { id: 1n, name: 'a' }, []);
    for (const storage of opened.splice(0)) await storage.close();
    const locked = makeReadOnly(path);
    if (typeof locked === 'string') return context.skip(locked);
    readOnly.push(locked);

    const error = await failure(sqliteStorage({ path }));
    expect(error.message).toMatch(new RegExp(`^sqlite storage could not open ${path}: the database is read-only: ${path} is not writable \\((EPERM|EACCES): `));
    expect(error.cause).toMatchObject({ code: expect.stringMatching(/^SQLITE_READONLY/) });
  });

  it('rejects at start when a new database cannot be created in a read-only folder', async (context) => {
    const dir = join(folder, `locked-${files++}`);
    mkdirSync(dir);
    const locked = makeReadOnly(dir);
    if (typeof locked === 'string') return context.skip(locked);
    readOnly.push(locked);
    const path = join(dir, 'plants.db');
    const error = await failure(sqliteStorage({ path }));
    expect(error.message).toMatch(new RegExp(`^sqlite storage could not open ${path}: the database is read-only: ${dir} is not writable`));
  });
});
