import { StorageError } from '@plant-store/core';
import type { Database as BetterSqlite3 } from 'better-sqlite3';

/** Runs a driver call, turning whatever it throws into a `StorageError` that says what failed, with the driver error as `cause`. */
export function withSqliteErrors<T>(action: string, run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (error instanceof StorageError) throw error;
    throw new StorageError(`sqlite storage could not ${action}`, { cause: error });
  }
}

/** Result codes of errors one row's values cause (a constraint, a type, a size), not the database's state. */
const ROW_ERROR_CODES = /^SQLITE_(CONSTRAINT|MISMATCH|TOOBIG|RANGE)/;

/** Whether `error` (a driver error, or a `StorageError` caused by one) comes from the values of one row rather than the database's state. */
export function isRowError(error: unknown): boolean {
  const driverError = error instanceof StorageError ? error.cause : error;
  const code = (driverError as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && ROW_ERROR_CODES.test(code);
}

/** Writes that are never acknowledged once the database files were deleted or replaced (see DatabaseFileGuard). */
export interface GuardedWrites {
  /** Runs `run` in one IMMEDIATE transaction (a savepoint when already in one) that checks the files before COMMIT, rolling back when they changed. */
  transaction<T>(action: string, run: () => T): T;
}

/** The guarded writes on `db`: `assertSameFile` runs inside each transaction, just before COMMIT. */
export function guardedWrites(db: BetterSqlite3, assertSameFile: (action: string) => void): GuardedWrites {
  const checked = db.transaction((action: string, run: () => unknown) => {
    const result = run();
    assertSameFile(action);
    return result;
  }).immediate;
  return { transaction: (action, run) => checked(action, run) as ReturnType<typeof run> };
}

/** Runs a write like `withSqliteErrors`, in a guarded transaction: it commits only while the files are the open ones. */
export function withSqliteWrite<T>(writes: GuardedWrites, action: string, run: () => T): T {
  return withSqliteErrors(action, () => writes.transaction(action, run));
}
