import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { StorageError } from '@plant-store/core';
import type { Storage } from '@plant-store/core/adapter';
import { BackgroundCheckpoints } from './background-checkpoints.js';
import { databaseFileGuard, isPlainFilePath } from './database-file-guard.js';
import { migrate } from './migrations/migrate.js';
import { MIGRATIONS } from './migrations/migrations.js';
import { openError } from './open-error.js';
import { retryWhileBusy } from './retry-while-busy.js';
import { guardedWrites, withSqliteErrors } from './sqlite-error.js';
import { SqlitePlantRepository } from './sqlite-plant-repository.js';
import { SqlitePortalLinks } from './sqlite-portal-links.js';
import { SqliteWebhookEndpoints } from './sqlite-webhook-endpoints.js';
import { SqliteWebhookOutbox } from './sqlite-webhook-outbox.js';

export interface SqliteStorageOptions {
  /** Database file; its folder is created when missing. `':memory:'` keeps everything in process memory. */
  readonly path: string;
  /** How long a write waits for another connection's lock (another process on the same file) before failing, in ms. @default 5000 */
  readonly busyTimeoutMs?: number;
}

/**
 * Storage in one SQLite file, which several storages (also in several processes) may share. Resolves once migrated
 * and writable; rejects with a `StorageError` naming the cause (read-only, not a database, …). Writes and `ping()`
 * reject once the database file or its log was deleted or replaced; `ping()` also when the file is not writable.
 */
export async function sqliteStorage(options: SqliteStorageOptions): Promise<Storage> {
  const busyTimeoutMs = Math.max(0, Math.trunc(options.busyTimeoutMs ?? 5000));
  let db: BetterSqlite3.Database;
  try {
    db = open(options.path, busyTimeoutMs);
  } catch (error) {
    throw openError(options.path, error);
  }
  try {
    await retryWhileBusy(busyTimeoutMs, () => prepare(db));
    return assemble(db, options.path, busyTimeoutMs);
  } catch (error) {
    if (db.open) db.close();
    throw openError(options.path, error);
  }
}

function assemble(db: BetterSqlite3.Database, path: string, busyTimeoutMs: number): Storage {
  const file = databaseFileGuard(path, () => rescueLog(db));
  // Checkpoints off the event loop; none in memory (no log) or for `file:` URIs (the worker opens plain paths).
  const checkpoints = isPlainFilePath(path) ? new BackgroundCheckpoints(db, { path, busyTimeoutMs }) : undefined;
  const writes = guardedWrites(db, (action) => {
    file.assertSameFile(action);
    checkpoints?.noteWrite();
  });
  const outbox = new SqliteWebhookOutbox(db, writes);
  const endpoints = new SqliteWebhookEndpoints(db, writes, outbox);
  const plants = new SqlitePlantRepository(db, outbox, writes);
  const ping = db.prepare('SELECT 1').pluck(true);
  let closed: Promise<void> | undefined;
  return {
    plants,
    outbox,
    endpoints,
    portalLinks: new SqlitePortalLinks(db, writes),
    dbSystem: 'sqlite',
    async ping() {
      withSqliteErrors('answer a ping', () => ping.get());
      const problem = file.problem();
      if (problem !== undefined) throw new StorageError(`sqlite storage is not ready: ${problem}`);
    },
    close() {
      // The worker's connection closes before the main one, so the main one checkpoints what is left.
      closed ??= (async () => {
        plants.flushWrites();
        file.close();
        await checkpoints?.close();
        withSqliteErrors('close the database', () => db.close());
      })();
      return closed;
    },
  };
}

/** Copies the commits of a log deleted under the connection into the database file, through the connection that still holds it. */
function rescueLog(db: BetterSqlite3.Database): void {
  try {
    if (db.open) db.pragma('wal_checkpoint(FULL)');
  } catch {
    // Nothing more to do: readiness and every write already report the lost log.
  }
}

function open(path: string, busyTimeoutMs: number): BetterSqlite3.Database {
  if (isPlainFilePath(path)) mkdirSync(dirname(resolve(path)), { recursive: true });
  const db = new BetterSqlite3(path);
  try {
    // Every INTEGER is read as a bigint: plant ids are int64 and must never pass through a double.
    db.defaultSafeIntegers(true);
    // busy_timeout first: switching to WAL may wait for another process.
    db.pragma(`busy_timeout = ${busyTimeoutMs}`);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/** The start-up statements, all safe to repeat; the last, a write that changes nothing, fails on a database opened read-only. */
async function prepare(db: BetterSqlite3.Database): Promise<void> {
  // Incremental auto-vacuum first, before anything creates a table: a new file starts with it.
  db.pragma('auto_vacuum = INCREMENTAL');
  db.pragma('journal_mode = WAL');
  // A checkpoint resets the WAL but keeps the file's largest size unless truncated: caps what stays on disk (64 MiB).
  db.pragma(`journal_size_limit = ${64 * 1024 * 1024}`);
  // With WAL, NORMAL is durable against process crashes and loses at most the last commits on power loss.
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  await migrate(db, MIGRATIONS);
  // A file created before incremental auto-vacuum (reported as 2) converts with a VACUUM, checked at every start so an interrupted one is redone.
  if (db.pragma('auto_vacuum', { simple: true }) !== 2n) {
    db.pragma('auto_vacuum = INCREMENTAL');
    db.exec('VACUUM');
  }
  db.prepare('DELETE FROM plants WHERE 0').run();
}
