import { Kysely, Migrator, PostgresDialect } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StorageError } from '@plant-store/core';
import { postgresMigrations, postgresStorage } from '@plant-store/storage-postgres';
import { acme } from '../support/principals.js';
import { postgresAvailable, TEST_DATABASE_URL, testSchemas } from '../support/postgres.js';
import { runCliInProcess } from '../support/run-cli-in-process.js';
import { reservePort } from '../support/webhook-receiver.js';
import { createPlantStore } from '@plant-store/core';

describe.skipIf(!postgresAvailable)('the store’s migrations run the host’s way on PostgreSQL', () => {
  const schemas = testSchemas();
  let hostPool: pg.Pool;

  beforeAll(() => {
    hostPool = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 3 });
  });

  afterAll(async () => {
    await hostPool?.end();
    await schemas.dropAll();
  });

  /**
   * The host's own kysely Migrator running the store's migrations, with tables of its own: kysely takes a lock table of its
   * name in any schema for its own, so the default one would be another schema's whenever one exists.
   */
  const hostMigrator = (schema: string) =>
    new Migrator({
      db: new Kysely<unknown>({ dialect: new PostgresDialect({ pool: hostPool }) }),
      provider: postgresMigrations({ schema }),
      migrationTableName: `${schema}_log`,
      migrationLockTableName: `${schema}_log_lock`,
    });

  it('runs in the host’s own kysely Migrator, whose search_path it leaves alone; the storage then opens with migrate: false', async () => {
    const schema = schemas.next();
    const migrator = hostMigrator(schema);
    const { error, results } = await migrator.migrateToLatest();
    expect(error).toBeUndefined();
    expect(results!.every((result) => result.status === 'Success' && result.migrationName.startsWith(`plant-store-${schema}-`))).toBe(true);
    // Every pooled connection still has the server's default path.
    const paths = await Promise.all([0, 1, 2].map(() => hostPool.query<{ path: string }>("SELECT current_setting('search_path') AS path")));
    expect(paths.map(({ rows }) => rows[0]!.path)).toEqual(paths.map(() => '"$user", public'));

    const store = createPlantStore({ storage: await postgresStorage({ pool: hostPool, schema, migrate: false }) });
    await expect(store.plants.create(acme, { id: 1, name: 'Fern' })).resolves.toMatchObject({ created: true });
    await store.close();
    // Run again: nothing to do.
    expect((await migrator.migrateToLatest()).results).toEqual([]);
  });

  it('prints the SQL (plant-store migrations sql), which a host applies with its own tools', async () => {
    const schema = schemas.next();
    const exit = await runCliInProcess(['migrations', 'sql', '--storage', 'postgres', '--db-schema', schema]);
    expect(exit.status).toBe(0);
    expect(exit.stdout).toContain(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    const client = await hostPool.connect();
    try {
      await client.query(exit.stdout);
    } finally {
      client.release(true); // the script set this session's path: not for the pool's next user
    }
    const store = createPlantStore({ storage: await postgresStorage({ pool: hostPool, schema, migrate: false }) });
    await expect(store.plants.create(acme, { id: 1, name: 'Fern' })).resolves.toMatchObject({ created: true });
    await store.close();
  });

  it('refuses, with migrate: false, a schema missing a migration, and says how to migrate it', async () => {
    const schema = schemas.next();
    await hostMigrator(schema).migrateToLatest();
    await hostPool.query(
      `DELETE FROM ${pg.escapeIdentifier(schema)}.plant_store_migrations WHERE name = (SELECT max(name) FROM ${pg.escapeIdentifier(schema)}.plant_store_migrations)`,
    );
    const failure = await postgresStorage({ pool: hostPool, schema, migrate: false }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(StorageError);
    expect(String((failure as StorageError).cause)).toMatch(
      /is at version \S+, this plant-store expects \S+: migrate it: .*postgresMigrations\(\).*plant-store migrations sql/,
    );
    await expect(postgresStorage({ pool: hostPool, schema: schemas.next(), migrate: false })).rejects.toThrow(StorageError);
  });

  it('refuses, with migrate: false, a schema a newer plant-store migrated, and asks for that version', async () => {
    const schema = schemas.next();
    await hostMigrator(schema).migrateToLatest();
    await hostPool.query(`INSERT INTO ${pg.escapeIdentifier(schema)}.plant_store_migrations (name) VALUES ('999-from-the-future')`);
    const failure = await postgresStorage({ pool: hostPool, schema, migrate: false }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(StorageError);
    expect(String((failure as StorageError).cause)).toMatch(/migrated by a newer plant-store \(999-from-the-future\): upgrade plant-store/);
  });

  it('refuses a pool that cannot connect with a StorageError saying so', async () => {
    const unreachable = new pg.Pool({ host: '127.0.0.1', port: await reservePort(), user: 'nobody', connectionTimeoutMillis: 2_000 });
    try {
      const failure = await postgresStorage({ pool: unreachable, schema: schemas.next() }).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(StorageError);
      expect((failure as StorageError).message).toMatch(/^postgres storage could not open the database through the given pool \(schema /);
      expect(String((failure as StorageError).cause)).toMatch(/ECONNREFUSED/);
    } finally {
      await unreachable.end();
    }
  });

  it('refuses a pool and a connection string together, and what is not a pool', async () => {
    await expect(postgresStorage({ pool: hostPool, connectionString: TEST_DATABASE_URL })).rejects.toThrow(/either a pool or a connectionString/);
    await expect(postgresStorage({ pool: {} as pg.Pool })).rejects.toThrow(/must be a pg.Pool/);
    await expect(postgresStorage({})).rejects.toThrow(/connectionString/);
  });
});
