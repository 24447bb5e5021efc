import type { Database } from 'better-sqlite3';

/** One schema version: SQL statements applied in order, in one transaction with the others pending. */
export interface Migration {
  readonly up: readonly string[];
}

// The bookkeeping of kysely's Migrator, which applied the migrations up to
// version 0.1.0: the same tables and rows, so a file migrated by either is
// recognised by the other. Statements as kysely wrote them.
const BOOKKEEPING = [
  'create table if not exists "kysely_migration" ("name" varchar(255) not null primary key, "timestamp" varchar(255) not null)',
  'create table if not exists "kysely_migration_lock" ("id" varchar(255) not null primary key, "is_locked" integer default 0 not null)',
  `insert into "kysely_migration_lock" ("id", "is_locked")
   select 'migration_lock', 0 where not exists (select 1 from "kysely_migration_lock" where "id" = 'migration_lock')`,
];

interface AppliedRow {
  readonly name: string;
  readonly timestamp: string;
}

/**
 * Applies the pending migrations (in name order) inside one IMMEDIATE
 * transaction: the write lock is what keeps two processes opening a new file
 * at once from migrating twice. Like kysely's migrator, it refuses a file
 * with an applied migration it does not know (a newer version wrote it) or
 * one applied out of order. Throws the SQLite error otherwise; nothing is
 * applied then.
 *
 * Runs on better-sqlite3 directly rather than through kysely: loading
 * kysely's modules would add about 90 ms to every start on a new file.
 */
export function migrate(db: Database, migrations: Readonly<Record<string, Migration>>): void {
  const names = Object.keys(migrations).sort();
  db.exec('BEGIN IMMEDIATE');
  try {
    for (const statement of BOOKKEEPING) db.exec(statement);
    const applied = appliedMigrations(db);
    for (const name of applied) {
      if (!names.includes(name)) throw new Error(`corrupted migrations: previously executed migration ${name} is missing`);
    }
    applied.forEach((name, index) => {
      if (names[index] !== name) {
        throw new Error(`corrupted migrations: expected previously executed migration ${name} to be at index ${index} but ${names[index]} was found in its place`);
      }
    });
    const record = db.prepare('insert into "kysely_migration" ("name", "timestamp") values (?, ?)');
    for (const name of names.slice(applied.length)) {
      for (const statement of migrations[name]!.up) db.exec(statement);
      record.run(name, new Date().toISOString());
    }
    db.exec('COMMIT');
  } catch (error) {
    if (db.inTransaction) db.exec('ROLLBACK');
    throw error;
  }
}

/** Applied migration names, oldest first (by time applied, then name, as kysely orders them). */
function appliedMigrations(db: Database): string[] {
  const rows = db.prepare('select "name", "timestamp" from "kysely_migration"').all() as AppliedRow[];
  return rows
    .sort((a, b) => (a.timestamp === b.timestamp ? a.name.localeCompare(b.name) : Date.parse(a.timestamp) - Date.parse(b.timestamp)))
    .map((row) => row.name);
}
