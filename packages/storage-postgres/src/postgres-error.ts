import { StorageError } from '@plant-store/core';

/** The `StorageError` for a failed driver call, saying what failed, with the driver error as `cause` (already-wrapped errors pass through). */
export function postgresError(action: string, error: unknown): StorageError {
  if (error instanceof StorageError) return error;
  return new StorageError(`postgres storage could not ${action}`, { cause: error });
}

/** Runs a driver call, turning whatever it rejects with into a {@link postgresError}. */
export async function withPostgresErrors<T>(action: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw postgresError(action, error);
  }
}
