import type BetterSqlite3 from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect, type Migration } from 'kysely';
import { APPLIED_TABLE } from './migration-provider.js';

type Migrations = Readonly<Record<string, () => Promise<Migration>>>;

/**
 * Migrates inside one IMMEDIATE transaction on the same connection: kysely's SQLite lock guards one connection only;
 * the write lock keeps two processes from migrating a new file twice.
 */
export async function migrate(db: BetterSqlite3.Database, migrations: Migrations): Promise<void> {
  const loaded = Object.fromEntries(await Promise.all(Object.entries(migrations).map(async ([name, load]) => [name, await load()] as const)));
  // Not destroyed afterwards: that would close the connection the storage goes on using.
  const kysely = new Kysely<unknown>({ dialect: new SqliteDialect({ database: db }) });
  const migrator = new Migrator({
    db: kysely,
    provider: { getMigrations: async () => loaded },
    disableTransactions: true,
  });
  db.exec('BEGIN IMMEDIATE');
  try {
    const { error } = await migrator.migrateToLatest();
    if (error) throw error;
    db.exec('COMMIT');
  } catch (error) {
    if (db.inTransaction) db.exec('ROLLBACK');
    throw error;
  }
}

/** How the store's versions are named (`001-initial`), as its own migrator records them. */
const STORE_VERSION = /^\d{3}-[a-z0-9-]+$/;

/** How a host brings a database up to date, for the messages of `checkMigrated`. */
const HOW_TO_MIGRATE =
  "migrate it: open the storage once with migrate: true (plant-store serve does), run sqliteMigrations() in your kysely Migrator, or apply the SQL of 'plant-store migrations sql --storage sqlite'";

/**
 * Throws unless the database holds exactly `migrations`, as the storage's own migrator records them (`kysely_migration`)
 * or a host's Migrator noted them (`plant_store_migrations`); changes nothing.
 */
export function checkMigrated(db: BetterSqlite3.Database, migrations: Migrations): void {
  const tables = new Set(db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck(true).all() as string[]);
  const applied = new Set<string>();
  for (const table of ['kysely_migration', APPLIED_TABLE]) {
    if (!tables.has(table)) continue;
    for (const name of db.prepare(`SELECT name FROM "${table}"`).pluck(true).all() as string[]) {
      // A host's own Migrator on this file may record its migrations (ours too, as plant-store-…) in kysely_migration.
      if (table === APPLIED_TABLE || STORE_VERSION.test(name)) applied.add(name);
    }
  }
  if (applied.size === 0) throw new Error(`the database holds no Plant Store tables: ${HOW_TO_MIGRATE}`);
  const unknown = [...applied].filter((name) => !(name in migrations)).sort();
  if (unknown.length > 0) throw new Error(`the database was migrated by a newer plant-store (${unknown.at(-1)}): upgrade plant-store`);
  const expected = Object.keys(migrations).sort();
  if (expected.some((name) => !applied.has(name))) {
    const at = expected.filter((name) => applied.has(name)).at(-1) ?? 'none';
    throw new Error(`the database is at version ${at}, this plant-store expects ${expected.at(-1)}: ${HOW_TO_MIGRATE}`);
  }
}
