import type BetterSqlite3 from 'better-sqlite3';
import type { Migration } from 'kysely';

/**
 * Brings the database to the latest schema with kysely's Migrator. This is
 * the adapter's only use of kysely: every query runs as a better-sqlite3
 * prepared statement (see the *-queries.ts modules).
 *
 * A file that already has every migration (every start but the first) is
 * recognised from kysely's own bookkeeping table with one query, and kysely
 * is not loaded at all: its few hundred modules cost about 90 ms of start-up.
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
  migrations: Readonly<Record<string, () => Promise<Migration>>>,
): Promise<void> {
  if (isUpToDate(db, Object.keys(migrations))) return;
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
