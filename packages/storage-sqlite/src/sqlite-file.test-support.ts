import BetterSqlite3 from 'better-sqlite3';

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
