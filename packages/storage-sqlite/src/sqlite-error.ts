import { StorageError } from '@plant-store/core';
import type { DatabaseFileGuard } from './database-file-guard.js';

/** Runs a driver call, turning whatever it throws into a `StorageError` that says what failed, with the driver error as `cause`. */
export function withSqliteErrors<T>(action: string, run: () => T): T {
  try {
    return run();
  } catch (error) {
    throw sqliteError(action, error);
  }
}

/** The `StorageError` for a failed driver call (already-wrapped errors pass through). */
export function sqliteError(action: string, error: unknown): StorageError {
  if (error instanceof StorageError) return error;
  return new StorageError(`sqlite storage could not ${action}`, { cause: error });
}

/**
 * Runs a write like `withSqliteErrors`, then, before it is acknowledged,
 * rejects when the database file was deleted or replaced by then: the write
 * went to a file the next start will not see.
 */
export function withSqliteWrite<T>(file: DatabaseFileGuard, action: string, run: () => T): T {
  const result = withSqliteErrors(action, run);
  file.assertSameFile(action);
  return result;
}
