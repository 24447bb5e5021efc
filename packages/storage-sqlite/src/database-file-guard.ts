import { accessSync, constants, statSync, watch, type FSWatcher, type Stats } from 'node:fs';
import { StorageError } from '@plant-store/core';

/** Whether `path` names a database file by a plain path: not in memory (`':memory:'`, `''`) nor a `file:` URI. */
export function isPlainFilePath(path: string): boolean {
  return path !== '' && path !== ':memory:' && !path.startsWith('file:');
}

/**
 * Notices when the files at the path stop being the ones the connection has open (by device and inode): SQLite keeps
 * writing to a deleted or replaced file, so every write would be acknowledged and then lost on the next start.
 */
export interface DatabaseFileGuard {
  /**
   * Throws a `StorageError` when the database file or its log at the path is no longer the open one. Run just before
   * every COMMIT, so a refused write is rolled back rather than left in a log a later checkpoint would copy.
   */
  assertSameFile(action: string): void;
  /** Why writes cannot be trusted right now (files deleted or replaced, not writable), or `undefined`. For readiness. */
  problem(): string | undefined;
  close(): void;
}

/** For in-memory databases and `file:` URIs. */
const UNGUARDED: DatabaseFileGuard = { assertSameFile() {}, problem: () => undefined, close() {} };

/**
 * The guard for the files at `path` now: call it once the connection has opened the file in WAL mode. Every write
 * stats the log; the database file is watched instead (its events come at checkpoints and when it is unlinked or
 * renamed over, never per write) and stat'ed on the next write after an event, or on every write where it cannot be.
 * `onLogLost` is called once, after the rollback, when the log alone was lost: a checkpoint through the connection
 * that still holds it open is the last chance to save the commits it acknowledged.
 */
export function databaseFileGuard(path: string, onLogLost?: () => void): DatabaseFileGuard {
  if (!isPlainFilePath(path)) return UNGUARDED;
  const database = identityOf(path);
  if (database === undefined) return UNGUARDED;
  const walPath = `${path}-wal`;
  const wal = identityOf(walPath);
  // Once set, it stays: the open inode can never come back to the path.
  let lost: string | undefined;
  // Set by any event at the database file (written, unlinked, renamed over); always set while it is not watched.
  let suspect = true;
  let watcher = wal === undefined ? undefined : watchFile(path, () => (suspect = true));
  const unwatch = () => {
    watcher?.close();
    watcher = undefined;
    suspect = true;
  };
  watcher?.on('error', unwatch);
  suspect = watcher === undefined;
  const identityProblem = () => {
    if (lost !== undefined) return lost;
    lost = changed(path, database, 'database file');
    if (lost === undefined && wal !== undefined) {
      lost = changed(walPath, wal, 'write-ahead log');
      if (lost !== undefined && onLogLost) queueMicrotask(onLogLost);
    }
    return lost;
  };
  return {
    assertSameFile(action) {
      if (lost === undefined && (suspect || (wal !== undefined && !isSameFile(walPath, wal)))) {
        // Cleared before the stat: an event arriving later marks it again.
        suspect = watcher === undefined;
        identityProblem();
      }
      if (lost !== undefined) throw new StorageError(`sqlite storage could not ${action}: ${lost}`);
    },
    problem: () => identityProblem() ?? notWritable(path),
    close: unwatch,
  };
}

/** Watches the file at `path` without keeping the process alive; `undefined` where it cannot (no inotify watches left, an unsupported file system). */
function watchFile(path: string, onEvent: () => void): FSWatcher | undefined {
  try {
    return watch(path, { persistent: false }, onEvent);
  } catch {
    return undefined;
  }
}

const identityOf = (path: string) => statSync(path, { throwIfNoEntry: false });

function isSameFile(path: string, opened: Stats): boolean {
  const now = identityOf(path);
  return now?.dev === opened.dev && now.ino === opened.ino;
}

function changed(path: string, opened: Stats, what: string): string | undefined {
  if (isSameFile(path, opened)) return undefined;
  const how = identityOf(path) === undefined ? 'deleted' : 'replaced by another file';
  return `the ${what} ${path} was ${how} while open; what is written now would be lost at the next start (restart the service)`;
}

/** Why the file at `path` cannot be written (permissions, immutable, read-only file system), or `undefined`. */
export function notWritable(path: string): string | undefined {
  try {
    accessSync(path, constants.W_OK);
    return undefined;
  } catch (error) {
    // `EACCES: permission denied` of Node's `EACCES: permission denied, access '/x'`.
    return `${path} is not writable (${(error as Error).message.replace(/, \w+ '.*'$/s, '')})`;
  }
}
