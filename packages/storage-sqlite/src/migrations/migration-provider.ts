import { sql, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import { MIGRATIONS } from './migrations.js';

/** Where the store notes each migration a host's own Migrator applied: `migrate: false` checks it at start. */
export const APPLIED_TABLE = 'plant_store_migrations';

/**
 * The store's migrations for the host's own kysely `Migrator` on the database the storage is given (then open the
 * storage with `migrate: false`). Each notes itself in `plant_store_migrations`, where the storage looks at start.
 * Named `plant-store-<version>`, so they sort together and never clash with the host's own.
 */
export function sqliteMigrations(): MigrationProvider {
  return {
    getMigrations: async () =>
      Object.fromEntries(
        await Promise.all(Object.entries(MIGRATIONS).map(async ([name, load]) => [`plant-store-${name}`, noted(name, await load())] as const)),
      ),
  };
}

function noted(name: string, migration: Migration): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await migration.up(db);
      await sql`CREATE TABLE IF NOT EXISTS ${sql.table(APPLIED_TABLE)} (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP)`.execute(db);
      await sql`INSERT OR IGNORE INTO ${sql.table(APPLIED_TABLE)} (name) VALUES (${sql.lit(name)})`.execute(db);
    },
  };
}
