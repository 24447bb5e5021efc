import { accessSync, constants, statSync } from 'node:fs';
import { StorageError } from '@plant-store/core';

/**
 * Notices when the database files at the path stop being the files the
 * connection has open. SQLite keeps writing to an open file after it is
 * deleted or replaced (in WAL mode it does not even warn), so every write
 * would be acknowledged and then lost on the next start. A file is
 * identified by device and inode; while the connection holds it open, its
 * inode cannot be reused, so a match really is the same file.
 */
export interface DatabaseFileGuard {
  /**
   * Throws a `StorageError` (`sqlite storage could not <action>: <reason>`)
   * when the database file at the path is no longer the open one. One stat
   * (about 1.5 µs, a tenth of a create's transaction): run after every write,
   * before it is acknowledged. The write-ahead log is left to `problem()`: a
   * second stat per write costs as much again, and a log deleted on its own
   * still reaches the database file when the service stops gracefully.
   */
  assertSameFile(action: string): void;
  /** Why writes cannot be trusted right now (database or log file deleted or replaced, file not writable), or `undefined`. For readiness. */
  problem(): string | undefined;
}

interface FileIdentity {
  readonly dev: number;
  readonly ino: number;
}

/** A guard over nothing, for in-memory databases and `file:` URIs (no plain path to compare). */
const UNGUARDED: DatabaseFileGuard = { assertSameFile() {}, problem: () => undefined };

/**
 * The guard for the database at `path`, taking the identity of the files
 * there now: call it once the connection has opened the file and read it in
 * WAL mode (so the `-wal` file exists).
 */
export function databaseFileGuard(path: string): DatabaseFileGuard {
  if (path === '' || path === ':memory:' || path.startsWith('file:')) return UNGUARDED;
  const database = identityOf(path);
  if (database === undefined) return UNGUARDED;
  const walPath = `${path}-wal`;
  const wal = identityOf(walPath);
  const databaseProblem = () => changed(path, database, 'database file');
  return {
    assertSameFile(action) {
      const reason = databaseProblem();
      if (reason !== undefined) throw new StorageError(`sqlite storage could not ${action}: ${reason}`);
    },
    problem() {
      return (
        databaseProblem() ??
        (wal && changed(walPath, wal, 'write-ahead log')) ??
        notWritable(path)
      );
    },
  };
}

function identityOf(path: string): FileIdentity | undefined {
  const stats = statSync(path, { throwIfNoEntry: false });
  return stats && { dev: stats.dev, ino: stats.ino };
}

/** Why the file at `path` is not the one identified by `opened`, or `undefined` when it is. */
function changed(path: string, opened: FileIdentity, what: string): string | undefined {
  const now = identityOf(path);
  if (now !== undefined && now.dev === opened.dev && now.ino === opened.ino) return undefined;
  const how = now === undefined ? 'deleted' : 'replaced by another file';
  return `the ${what} ${path} was ${how} while open; what is written now would be lost at the next start (restart the service)`;
}

/** Why the file at `path` cannot be written (permissions, immutable, read-only file system), or `undefined`. */
export function notWritable(path: string): string | undefined {
  try {
    accessSync(path, constants.W_OK);
    return undefined;
  } catch (error) {
    return `${path} is not writable (${errnoText(error)})`;
  }
}

/** `EACCES: permission denied` from Node's `EACCES: permission denied, access '/x'`. */
function errnoText(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/, \w+ '.*'$/s, '');
}
