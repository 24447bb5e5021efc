import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { createPlantStore, StorageError } from '@plant-store/core';
import { sqliteMigrations, sqliteStorage } from '@plant-store/storage-sqlite';
import { acme } from '../support/principals.js';
import { runCliInProcess } from '../support/run-cli-in-process.js';
import { hostDatabase } from './embedded-store.js';

const dir = mkdtempSync(join(tmpdir(), 'plant-store-embedding-migrations-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A host's connection to a database file of its own in this suite's folder. */
const hostDatabaseNamed = (name: string) => hostDatabase(join(dir, name));

async function opensWithoutMigrating(db: Database.Database): Promise<void> {
  const store = createPlantStore({ storage: await sqliteStorage({ database: db, migrate: false }) });
  await expect(store.plants.create(acme, { id: 1, name: 'Fern' })).resolves.toMatchObject({ created: true });
  await store.close();
}

describe('the store’s migrations run the host’s way on SQLite', () => {
  it('runs in the host’s own kysely Migrator (its own migration table untouched); the storage then opens with migrate: false', async () => {
    const db = hostDatabaseNamed('migrator.db');
    const kysely = new Kysely<unknown>({ dialect: new SqliteDialect({ database: db }) });
    const migrator = new Migrator({ db: kysely, provider: sqliteMigrations() });
    const { error, results } = await migrator.migrateToLatest();
    expect(error).toBeUndefined();
    expect(results!.every((result) => result.status === 'Success' && result.migrationName.startsWith('plant-store-'))).toBe(true);
    await opensWithoutMigrating(db);
    expect((await migrator.migrateToLatest()).results).toEqual([]);
    db.close();
  });

  it('prints the SQL (plant-store migrations sql), which a host applies with its own tools', async () => {
    const exit = await runCliInProcess(['migrations', 'sql', '--storage', 'sqlite']);
    expect(exit.status).toBe(0);
    const db = hostDatabaseNamed('printed.db');
    db.exec(exit.stdout);
    await opensWithoutMigrating(db);
    db.close();
  });

  it('refuses, with migrate: false, a database not at this version, and says how to migrate it', async () => {
    const db = hostDatabaseNamed('behind.db');
    await expect(sqliteStorage({ database: db, migrate: false })).rejects.toThrow(/holds no Plant Store tables: migrate it/);
    db.exec((await runCliInProcess(['migrations', 'sql', '--storage', 'sqlite'])).stdout);
    db.exec('DELETE FROM plant_store_migrations WHERE name = (SELECT max(name) FROM plant_store_migrations)');
    const failure = await sqliteStorage({ database: db, migrate: false }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(StorageError);
    expect((failure as Error).message).toMatch(
      /is at version \S+, this plant-store expects \S+: migrate it: .*sqliteMigrations\(\).*plant-store migrations sql/,
    );
    db.close();
  });

  it('refuses, with migrate: false, a database a newer plant-store migrated, and asks for that version', async () => {
    const db = hostDatabaseNamed('ahead.db');
    db.exec((await runCliInProcess(['migrations', 'sql', '--storage', 'sqlite'])).stdout);
    db.prepare("INSERT INTO plant_store_migrations (name) VALUES ('999-from-the-future')").run();
    const failure = await sqliteStorage({ database: db, migrate: false }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(StorageError);
    expect(String((failure as StorageError).cause)).toMatch(/migrated by a newer plant-store \(999-from-the-future\): upgrade plant-store/);
    db.close();
  });

  it('explains CLI mistakes', async () => {
    expect(await runCliInProcess(['migrations', 'sql', '--storage', 'memory'])).toMatchObject({
      status: 2,
      stderr: expect.stringContaining('postgres or sqlite'),
    });
    expect(await runCliInProcess(['migrations', 'up'])).toMatchObject({ status: 2, stderr: expect.stringContaining("unknown migrations command 'up'") });
    // Settings read as serve reads them: an empty variable is unset, and a schema serve refuses is refused here too.
    expect(await runCliInProcess(['migrations', 'sql'], { PLANT_STORE_STORAGE: ' ' })).toMatchObject({
      status: 0,
      stdout: expect.stringContaining('-- plant-store-001-initial'),
    });
    for (const [args, env] of [
      [['--db-schema', 'bad schema!'], {}],
      [[], { PLANT_STORE_DB_SCHEMA: 'bad-schema' }],
    ] as const) {
      expect(await runCliInProcess(['migrations', 'sql', '--storage', 'postgres', ...args], env)).toMatchObject({
        status: 2,
        stderr: expect.stringContaining('PLANT_STORE_DB_SCHEMA (--db-schema): must be a name of letters, digits and _'),
      });
    }
    expect(await runCliInProcess(['migrations', '--help'])).toMatchObject({ status: 0, stdout: expect.stringContaining('plant-store migrations sql') });
  });
});
