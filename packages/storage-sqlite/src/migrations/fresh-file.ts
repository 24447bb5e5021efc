import type BetterSqlite3 from 'better-sqlite3';

/**
 * The schema a run of kysely's Migrator leaves in a new file, as plain SQL:
 * the fast path for new files (see `applyFreshSchema`). The one in use is
 * generated into fresh-schema.ts by its test.
 */
export interface FreshSchema {
  /** The migrations it stands for, in name order (the order kysely applies them). */
  readonly migrations: readonly string[];
  /**
   * The `sql` of every entry of `sqlite_master` in creation order (automatic
   * indexes have none: their tables make them), kysely's own bookkeeping
   * tables first as its Migrator creates them before any migration.
   */
  readonly statements: readonly string[];
}

/** The id of the row kysely's Migrator keeps in its lock table (its `MIGRATION_LOCK_ID`). */
const MIGRATION_LOCK_ID = 'migration_lock';

/** True when the database holds no table, index, view or trigger at all: a new file. */
export function isEmptyDatabase(db: BetterSqlite3.Database): boolean {
  return db.prepare('SELECT 1 FROM sqlite_master LIMIT 1').get() === undefined;
}

/**
 * Creates `schema` in an empty database in one IMMEDIATE transaction,
 * together with the rows kysely's Migrator would have written: its lock row,
 * and one row per migration. So the file is what the Migrator makes of a new
 * file, and a later version's Migrator applies its new migrations to it as
 * to any other. All rows share one timestamp, as migrations the Migrator runs
 * within a millisecond do: it orders equal timestamps by name.
 *
 * Emptiness is checked again once the write lock is held: several processes
 * may open one new file at once. Returns false, having changed nothing, when
 * the database is no longer empty by then (another one got there first).
 */
export function applyFreshSchema(db: BetterSqlite3.Database, schema: FreshSchema): boolean {
  db.exec('BEGIN IMMEDIATE');
  try {
    if (!isEmptyDatabase(db)) {
      db.exec('ROLLBACK');
      return false;
    }
    for (const statement of schema.statements) db.exec(statement);
    db.prepare('INSERT INTO kysely_migration_lock (id, is_locked) VALUES (?, 0)').run(MIGRATION_LOCK_ID);
    const record = db.prepare('INSERT INTO kysely_migration (name, timestamp) VALUES (?, ?)');
    const timestamp = new Date().toISOString();
    for (const name of schema.migrations) record.run(name, timestamp);
    db.exec('COMMIT');
    return true;
  } catch (error) {
    if (db.inTransaction) db.exec('ROLLBACK');
    throw error;
  }
}
