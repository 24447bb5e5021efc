import type BetterSqlite3 from 'better-sqlite3';
import type { Migration } from 'kysely';
import { applyFreshSchema, isEmptyDatabase, type FreshSchema } from './fresh-file.js';
import { FRESH_SCHEMA } from './fresh-schema.js';

type Migrations = Readonly<Record<string, () => Promise<Migration>>>;

/**
 * Brings the database to the latest schema. kysely's Migrator is the
 * reference, but kysely's few hundred modules cost about 90 ms of start-up,
 * so it is loaded only when neither shortcut applies:
 *
 * - A file that already has every migration (every start but the first) is
 *   recognised from kysely's own bookkeeping table with one query.
 * - A new, empty file gets `freshSchema`, the Migrator's result recorded as
 *   plain SQL, with the Migrator's bookkeeping (see `applyFreshSchema`).
 *   Only when it stands for exactly these migrations: when it lags behind
 *   them (a migration was added and the snapshot not regenerated, which its
 *   test reports) or a caller migrates to an older version, the Migrator
 *   does all of it. Applying the snapshot and then the rest with kysely would
 *   save nothing, since loading kysely is the cost avoided, and would be one
 *   more way of building a file to keep equal to the Migrator's. `null`
 *   always takes the Migrator (the snapshot's own test compares the two).
 *
 * Otherwise the Migrator runs inside one IMMEDIATE transaction on the same
 * connection, with its own transactions off: kysely's SQLite migration lock
 * only guards one connection, and the write lock is what keeps two processes
 * opening a new file at once from migrating it twice. Like the Migrator, it
 * refuses a file with a migration it does not know (a newer version wrote
 * it). Throws the error otherwise; nothing is applied then.
 */
export async function migrate(
  db: BetterSqlite3.Database,
  migrations: Migrations,
  freshSchema: FreshSchema | null = FRESH_SCHEMA,
): Promise<void> {
  // kysely's order: by name.
  const names = Object.keys(migrations).sort();
  if (isUpToDate(db, names)) return;
  if (freshSchema !== null && sameNames(freshSchema.migrations, names) && isEmptyDatabase(db)) {
    // Not applied: another process created the file meanwhile, and is most likely the same version.
    if (applyFreshSchema(db, freshSchema) || isUpToDate(db, names)) return;
  }
  await migrateWithKysely(db, migrations);
}

/** Runs kysely's Migrator to the latest of `migrations` in one IMMEDIATE transaction. */
async function migrateWithKysely(db: BetterSqlite3.Database, migrations: Migrations): Promise<void> {
  const { Kysely, Migrator, SqliteDialect } = await import('kysely');
  const loaded = Object.fromEntries(
    await Promise.all(Object.entries(migrations).map(async ([name, load]) => [name, await load()] as const)),
  );
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

/** True when kysely's bookkeeping lists exactly these migrations as applied. */
function isUpToDate(db: BetterSqlite3.Database, names: readonly string[]): boolean {
  const bookkeeping = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'kysely_migration'").get();
  if (bookkeeping === undefined) return false;
  const applied = db.prepare('SELECT name FROM kysely_migration').pluck().all() as string[];
  return applied.length === names.length && names.every((name) => applied.includes(name));
}

function sameNames(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((name, index) => name === b[index]);
}
