import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { StorageError } from '@plant-store/core';
import { isPlainFilePath, notWritable } from './database-file-guard.js';

/** Driver codes of a database SQLite could open (or create) for reading at most. */
const READ_ONLY_CODES = /^SQLITE_(READONLY|CANTOPEN|PERM|IOERR)/;

/** `sqlite storage could not open <path>: <cause>`; a read-only database says why when it can. */
export function openError(path: string, error: unknown): StorageError {
  if (error instanceof StorageError) return error;
  const code = (error as { code?: unknown } | null)?.code;
  const driverText = error instanceof Error ? error.message : String(error);
  let cause = typeof code === 'string' && !driverText.includes(code) ? `${driverText} (${code})` : driverText;
  if (typeof code === 'string' && READ_ONLY_CODES.test(code)) {
    // The file, or for a file that does not exist yet its folder, cannot be written.
    const fileProblem = isPlainFilePath(path) ? (existsSync(path) && notWritable(path)) || notWritable(dirname(path)) : undefined;
    if (fileProblem !== undefined) cause = `the database is read-only: ${fileProblem}`;
    else if (code.startsWith('SQLITE_READONLY')) cause = `the database is read-only (${driverText})`;
  }
  return new StorageError(`sqlite storage could not open ${path}: ${cause}`, { cause: error });
}
