import { StorageError } from '@plant-store/core';

/** The `StorageError` for a failed driver call, saying what failed, with the driver error as `cause` (already-wrapped errors pass through). */
export function postgresError(action: string, error: unknown): StorageError {
  if (error instanceof StorageError) return error;
  return new StorageError(`postgres storage could not ${action}`, { cause: error });
}
