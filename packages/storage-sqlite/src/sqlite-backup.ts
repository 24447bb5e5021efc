import { existsSync, renameSync, rmSync, statSync } from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import { StorageError } from '@plant-store/core';

export interface SqliteBackupOptions {
  /** The database file to copy (a running service may have it open). */
  readonly path: string;
  /** The new file to write; must not exist yet. */
  readonly to: string;
  /** How long to wait for a lock held by another connection, in ms. @default 5000 */
  readonly busyTimeoutMs?: number;
}

/**
 * Writes a consistent, compacted copy of the database at `path` to the new file `to` while a service goes on writing
 * (`VACUUM INTO`: one read transaction, never starting over like the backup API), renamed into place once complete.
 * Resolves with its size; rejects with a `StorageError` when `path` is no database, `to` exists, or the copy fails.
 */
export async function backupSqliteDatabase(options: SqliteBackupOptions): Promise<{ bytes: number }> {
  const { path, to } = options;
  if (!existsSync(path)) throw new StorageError(`cannot back up ${path}: no such database file`);
  if (existsSync(to)) throw new StorageError(`cannot back up to ${to}: the file exists (a backup never overwrites one)`);
  const partial = `${to}.partial-${process.pid}`;
  let db: BetterSqlite3.Database | undefined;
  try {
    db = new BetterSqlite3(path, { fileMustExist: true });
    db.pragma(`busy_timeout = ${Math.max(0, Math.trunc(options.busyTimeoutMs ?? 5000))}`);
    db.prepare('VACUUM INTO ?').run(partial);
    db.close();
    renameSync(partial, to);
    return { bytes: statSync(to).size };
  } catch (error) {
    if (db?.open) db.close();
    rmSync(partial, { force: true });
    throw new StorageError(`cannot back up ${path} to ${to}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}
