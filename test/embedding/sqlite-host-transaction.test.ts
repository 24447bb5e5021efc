import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ConfigurationError, NotFoundError, type PlantEvents, type PlantStore } from '@plant-store/core';
import { sqliteStorage } from '@plant-store/storage-sqlite';
import { acme } from '../support/principals.js';
import { startReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import { embeddedStore, hookedIds, hostDatabase } from './embedded-store.js';

const dir = mkdtempSync(join(tmpdir(), 'plant-store-embedding-'));

describe('the store in a host transaction on SQLite', () => {
  const file = join(dir, 'app.db');
  let host: Database.Database;
  let receiver: WebhookReceiver;
  let store: PlantStore;
  let created: PlantEvents['plant.created'][];

  beforeAll(async () => {
    host = hostDatabase(file);
    host.exec('CREATE TABLE orders (id INTEGER PRIMARY KEY, plant_id INTEGER NOT NULL)');
    receiver = await startReceiver();
    ({ store, created } = embeddedStore(await sqliteStorage({ database: host }), receiver));
  });

  afterAll(async () => {
    await store?.close();
    await receiver?.close();
    host?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const deliveriesOf = (id: number) => host.prepare('SELECT count(*) AS n FROM webhook_deliveries WHERE payload LIKE ?').get(`{"id":${id},%`) as { n: number };

  it('commits the plant, the host order and the webhook in the host’s db.transaction(fn), delivered exactly once, its event after the commit', async () => {
    const tx = store.inTransaction(host);
    const outcome = host.transaction(() => {
      host.prepare('INSERT INTO orders VALUES (1, 1)').run();
      return tx.plants.createSync(acme, { id: 1, name: 'Fern' });
    })();
    expect(outcome).toMatchObject({ created: true, plant: { id: 1n } });
    expect(created).toHaveLength(0);
    tx.committed();
    expect(created.map((event) => event.plant.id)).toEqual([1n]);
    await receiver.waitFor(1, { path: '/hook' });
    await vi.waitFor(async () => expect(await store.allTenants.webhooks.list({ status: 'delivered' })).toHaveLength(1));
    expect(hookedIds(receiver)).toEqual(['1']);
    expect(receiver.duplicates()).toBe(0);
    // The host's connection still reads integers its own way.
    expect(host.prepare('SELECT plant_id FROM orders WHERE id = 1').get()).toEqual({ plant_id: 1 });
  });

  it('rolls back with the host: no plant, no delivery, no event', async () => {
    const tx = store.inTransaction(host);
    expect(() =>
      host.transaction(() => {
        tx.plants.createSync(acme, { id: 2, name: 'Palm' });
        throw new Error('the host changed its mind');
      })(),
    ).toThrow('changed its mind');
    await expect(store.plants.get(acme, 2)).rejects.toBeInstanceOf(NotFoundError);
    expect(deliveriesOf(2).n).toBe(0);
    expect(created).toHaveLength(1);
  });

  it('leaves a plant absent and its id free when the host statement after it fails', async () => {
    const tx = store.inTransaction(host);
    expect(() =>
      host.transaction(() => {
        tx.plants.createSync(acme, { id: 3, name: 'Ivy' });
        host.prepare('INSERT INTO orders VALUES (1, 3)').run(); // order 1 exists
      })(),
    ).toThrow(/UNIQUE/);
    await expect(store.plants.get(acme, 3)).rejects.toBeInstanceOf(NotFoundError);
    expect(deliveriesOf(3).n).toBe(0);
    await expect(store.plants.create(acme, { id: 3, name: 'Moss' })).resolves.toMatchObject({ created: true });
  });

  it('answers a replay and a conflict inside the transaction as the store does, and deletes', () => {
    const tx = store.inTransaction(host);
    host.transaction(() => {
      expect(tx.plants.createSync(acme, { id: 1, name: 'Fern' })).toMatchObject({ created: false, plant: { id: 1n, name: 'Fern' } });
      expect(() => tx.plants.createSync(acme, { id: 1, name: 'Other' })).toThrow(expect.objectContaining({ code: 'conflict' }));
      expect(() => tx.plants.createSync(acme, { id: 'x', name: 'Other' })).toThrow(expect.objectContaining({ code: 'validation' }));
      tx.plants.deleteSync(acme, 3);
      expect(() => tx.plants.deleteSync(acme, 3)).toThrow(NotFoundError);
    })();
    tx.committed();
    expect(() => tx.plants.createSync(acme, { id: 4, name: 'Late' })).toThrow(/already committed/);
  });

  it('refuses a Database outside a transaction', () => {
    expect(() => store.inTransaction(host).plants.createSync(acme, { id: 5, name: 'Loose' })).toThrow(/outside a transaction/);
  });

  it('writes in a kysely Transaction on a connection of the host’s own to the same file', async () => {
    const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: hostDatabase(file) }) });
    try {
      const tx = await db.transaction().execute(async (trx) => {
        await sql`INSERT INTO orders VALUES (6, 6)`.execute(trx);
        const joined = store.inTransaction(trx);
        await joined.plants.create(acme, { id: 6, name: 'Kysely fern' });
        await joined.plants.create(acme, { id: 9223372036854775807n, name: 'Largest' });
        await expect(joined.plants.create(acme, { id: 9223372036854775807n, name: 'Largest' })).resolves.toMatchObject({
          created: false,
          plant: { id: 9223372036854775807n },
        });
        return joined;
      });
      tx.committed();
      await expect(store.plants.get(acme, 6)).resolves.toMatchObject({ name: 'Kysely fern' });
      await receiver.waitForMessages(4);
      expect(hookedIds(receiver)).toEqual(['1', '3', '6', '9223372036854775807']);
      await expect(db.transaction().execute(async (trx) => store.inTransaction(trx).plants.create(acme, { id: 6, name: 'Other' }))).rejects.toMatchObject({
        code: 'conflict',
      });
    } finally {
      await db.destroy();
    }
  });

  it('refuses a kysely Transaction on the store’s own connection, whose other writes would join it', async () => {
    const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: host }) });
    await expect(db.transaction().execute((trx) => store.inTransaction(trx).plants.create(acme, { id: 7, name: 'Shared' }))).rejects.toThrow(
      /connection of its own/,
    );
    await expect(store.plants.get(acme, 7)).rejects.toBeInstanceOf(NotFoundError);
    // Not db.destroy(): that would close the host's connection.
  });

  it('checks what it needs of the host’s connection, and changes nothing there', async () => {
    const rollback = new Database(join(dir, 'rollback-journal.db'));
    rollback.pragma('busy_timeout = 1000');
    await expect(sqliteStorage({ database: rollback })).rejects.toThrow(/WAL mode.*journal_mode = WAL/);
    expect(rollback.pragma('journal_mode', { simple: true })).toBe('delete');
    rollback.pragma('journal_mode = WAL');
    rollback.pragma('busy_timeout = 0');
    await expect(sqliteStorage({ database: rollback })).rejects.toBeInstanceOf(ConfigurationError);
    rollback.close();
    await expect(sqliteStorage({ database: rollback })).rejects.toThrow(/closed/);
  });

  it('queues to a filtered endpoint only what its filter matches, in the host’s db.transaction(fn) and in a kysely Transaction', async () => {
    const { endpoint } = await store.webhooks.endpoints.create(acme, { url: 'https://receiver.example/filtered', filter: { 'data.tag': 'indoor' } });
    host.transaction(() => {
      store.inTransaction(host).plants.createSync(acme, { id: 101, name: 'Inside', tag: 'indoor' });
      store.inTransaction(host).plants.createSync(acme, { id: 102, name: 'Outside', tag: 'outdoor' });
    })();
    const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: hostDatabase(file) }) });
    try {
      await db.transaction().execute(async (trx) => {
        await store.inTransaction(trx).plants.create(acme, { id: 103, name: 'Inside', tag: 'indoor' });
        await store.inTransaction(trx).plants.create(acme, { id: 104, name: 'Outside', tag: 'outdoor' });
      });
    } finally {
      await db.destroy();
    }
    const queued = host.prepare('SELECT payload FROM webhook_deliveries WHERE endpoint_id = ?').pluck().all(endpoint.id) as string[];
    expect(queued.map((payload) => (JSON.parse(payload) as { id: number }).id).sort()).toEqual([101, 103]);
    await store.webhooks.endpoints.delete(acme, endpoint.id);
  });

  it('never closes the host’s database', async () => {
    const other = await sqliteStorage({ database: host });
    await other.close();
    expect(host.open).toBe(true);
    expect(host.prepare('SELECT count(*) AS n FROM orders').get()).toEqual({ n: 2 });
  });
});
