import { StorageError } from '@plant-store/core';

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
