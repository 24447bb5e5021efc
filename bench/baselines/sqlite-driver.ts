// The better-sqlite3 driver for the SQLite baselines, opened with the
// service's pragmas. It is a dependency of storage-sqlite, not of the root,
// so its types are not visible from bench/: this is the slice used here.
import { createRequire } from 'node:module';
import { join } from 'node:path';

export interface Statement {
  run(...params: unknown[]): { changes: number };
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  raw(toggle?: boolean): Statement;
  pluck(toggle?: boolean): Statement;
}

export interface Database {
  pragma(source: string): unknown;
  exec(source: string): void;
  prepare(source: string): Statement;
  defaultSafeIntegers(toggle?: boolean): Database;
  transaction<A extends unknown[], R>(fn: (...args: A) => R): ((...args: A) => R) & { immediate: (...args: A) => R };
  close(): void;
}
type DatabaseConstructor = new (file: string) => Database;

/** Storage-sqlite's better-sqlite3, resolved from the repository (the working folder of every bench process): the service's own driver. */
export const betterSqlite3Path = () => createRequire(join(process.cwd(), 'packages/storage-sqlite/package.json')).resolve('better-sqlite3');

/** `file` opened with the service's pragmas: bigint integers, busy timeout, WAL, synchronous=NORMAL. */
export function openSqlite(file: string): Database {
  const Driver = createRequire(import.meta.url)(betterSqlite3Path()) as DatabaseConstructor;
  const db = new Driver(file);
  db.defaultSafeIntegers(true);
  db.pragma('busy_timeout = 5000');
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  return db;
}
