import BetterSqlite3 from 'better-sqlite3';
import type { Migration } from 'kysely';
import { migrate } from './migrations/migrate.js';
import { MIGRATIONS } from './migrations/migrations.js';

// Shared by this package's tests; left out of the build (tsconfig.build.json) and the package (package.json files).

/** Reads a SQLite file on a read-only connection of its own, as another process would, and closes it again. */
export function inspectSqliteFile<T>(path: string, read: (db: BetterSqlite3.Database) => T): T {
  const db = new BetterSqlite3(path, { readonly: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
}

/** SQLite's plan of `sql` on the file at `path`: the detail of each step, in order. */
export function queryPlanOf(path: string, sql: string, parameters: unknown[] = []): string[] {
  return inspectSqliteFile(path, (db) => (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...parameters) as { detail: string }[]).map((step) => step.detail));
}

/** A new SQLite file at `path` as an older version left it: the migrations before `name`, then `seed`'s rows. */
export async function migratedFileBefore(path: string, name: string, seed: (db: BetterSqlite3.Database) => void): Promise<void> {
  const db = new BetterSqlite3(path);
  try {
    await migrate(db, migrationsBefore(name));
    seed(db);
  } finally {
    db.close();
  }
}

/** The migrations before `name` (`'004'`: 001 to 003), for a file as an older version left it. */
export function migrationsBefore(name: string): Record<string, () => Promise<Migration>> {
  return Object.fromEntries(Object.entries(MIGRATIONS).filter(([migration]) => migration < name));
}
