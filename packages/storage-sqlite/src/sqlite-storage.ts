import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { ConfigurationError, StorageError } from '@plant-store/core';
import { parkedLimitOption, type Storage } from '@plant-store/core/adapter';
import { BackgroundCheckpoints } from './background-checkpoints.js';
import { refusingAfterClose } from './refusing-after-close.js';
import { databaseFileGuard, isPlainFilePath } from './database-file-guard.js';
import { checkMigrated, migrate } from './migrations/migrate.js';
import { MIGRATIONS } from './migrations/migrations.js';
import { hostTransactionWrites } from './host-transaction-writes.js';
import { openError } from './open-error.js';
import { retryWhileBusy } from './retry-while-busy.js';
import { guardedWrites, withSqliteErrors } from './sqlite-error.js';
import { SqlitePlantRepository } from './sqlite-plant-repository.js';
import { SqlitePortalLinks } from './sqlite-portal-links.js';
import { SqliteWebhookEndpoints } from './sqlite-webhook-endpoints.js';
import { SqliteWebhookOutbox } from './sqlite-webhook-outbox.js';

export interface SqliteStorageOptions {
  /** Database file; its folder is created when missing. `':memory:'` keeps everything in process memory. Give this or `database`. */
  readonly path?: string;
  /**
   * The host's open better-sqlite3 `Database` instead of a path: the store's tables go in it, and the store never
   * closes it nor changes its settings. It must be writable, in WAL mode (`db.pragma('journal_mode = WAL')`) and
   * wait for locks (`db.pragma('busy_timeout = 5000')`): checked at start. The host's own checkpoints apply.
   */
  readonly database?: BetterSqlite3.Database;
  /** Whether to apply pending migrations at start; with `false`, a database not at this version is refused (the host migrates it its way: `sqliteMigrations()`). @default true */
  readonly migrate?: boolean;
  /** How long a write waits for another connection's lock (another process on the same file) before failing, in ms. @default 5000 */
  readonly busyTimeoutMs?: number;
  /** Parked messages kept per disabled endpoint; past it the oldest are dropped and counted on the endpoint (`parkedDropped`). 0 keeps none. @default DEFAULT_PARKED_LIMIT (10,000) */
  readonly parkedLimit?: number;
}

/**
 * Storage in one SQLite file, which several storages (also in several processes) may share. Resolves once migrated
 * and writable; rejects with a `StorageError` naming the cause (read-only, not a database, …). Writes and `ping()`
 * reject once the database file or its log was deleted or replaced; `ping()` also when the file is not writable.
 */
export async function sqliteStorage(options: SqliteStorageOptions): Promise<Storage> {
  const busyTimeoutMs = Math.max(0, Math.trunc(options.busyTimeoutMs ?? 5000));
  const parkedLimit = parkedLimitOption(options.parkedLimit);
  if (options.database !== undefined) return onHostDatabase(options, parkedLimit);
  const path = options.path;
  if (typeof path !== 'string') throw new ConfigurationError('path', 'is required (or give an open better-sqlite3 Database as database)');
  let db: BetterSqlite3.Database;
  try {
    db = open(path, busyTimeoutMs);
  } catch (error) {
    throw openError(path, error);
  }
  try {
    await retryWhileBusy(busyTimeoutMs, () => prepare(db, options.migrate !== false));
    return assemble(db, path, { busyTimeoutMs, owned: true, parkedLimit });
  } catch (error) {
    if (db.open) db.close();
    throw openError(path, error);
  }
}

/** The storage on the host's connection: checked, migrated (unless `migrate: false`), never closed or reconfigured. */
async function onHostDatabase(options: SqliteStorageOptions, parkedLimit: number): Promise<Storage> {
  const host = options.database!;
  if (options.path !== undefined) throw new ConfigurationError('database', 'give either a database or a path, not both');
  checkHostDatabase(host);
  const db = readingBigInts(host);
  try {
    await retryWhileBusy(Number(db.pragma('busy_timeout', { simple: true })), async () => {
      if (options.migrate === false) checkMigrated(db, MIGRATIONS);
      else await migrate(db, MIGRATIONS);
      db.prepare('DELETE FROM plants WHERE 0').run();
    });
    return assemble(db, host.name, { busyTimeoutMs: 0, owned: false, parkedLimit });
  } catch (error) {
    throw openError(host.name, error);
  }
}

/** What the store needs of a host's connection, which it does not change itself: the host owns its settings. */
function checkHostDatabase(db: BetterSqlite3.Database): void {
  const candidate = db as unknown as Record<string, unknown>;
  if (typeof candidate.prepare !== 'function' || typeof candidate.pragma !== 'function' || !('inTransaction' in candidate)) {
    throw new ConfigurationError('database', 'must be an open better-sqlite3 Database (new Database(path))');
  }
  if (!db.open) throw new ConfigurationError('database', 'is closed');
  if (db.readonly) throw new ConfigurationError('database', 'is read-only: the store writes its tables there');
  const journal = String(db.pragma('journal_mode', { simple: true })).toLowerCase();
  if (journal !== 'wal' && db.name !== ':memory:' && db.name !== '') {
    throw new ConfigurationError(
      'database',
      `must be in WAL mode, so readers never wait for a writer (it is in ${journal}): run db.pragma('journal_mode = WAL') first`,
    );
  }
  if (Number(db.pragma('busy_timeout', { simple: true })) <= 0) {
    throw new ConfigurationError('database', "must wait for another connection's lock instead of failing at once: run db.pragma('busy_timeout = 5000') first");
  }
}

/**
 * The host's connection as the store uses it: every statement it prepares reads integers as bigints (ids are int64),
 * set per statement, so the connection's own default, the host's, stays as it is.
 */
function readingBigInts(db: BetterSqlite3.Database): BetterSqlite3.Database {
  return new Proxy(db, {
    get(target, key) {
      if (key === 'prepare') return (source: string) => target.prepare(source).safeIntegers(true);
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

interface Assembly {
  readonly busyTimeoutMs: number;
  /** The storage opened the connection, so it checkpoints it and closes it; a host's it does neither. */
  readonly owned: boolean;
  /** Parked messages kept per endpoint, checked. */
  readonly parkedLimit: number;
}

function assemble(db: BetterSqlite3.Database, path: string, { busyTimeoutMs, owned, parkedLimit }: Assembly): Storage {
  const file = databaseFileGuard(path, () => rescueLog(db));
  // Checkpoints off the event loop; none in memory (no log) or for `file:` URIs (the worker opens plain paths).
  const checkpoints = owned && isPlainFilePath(path) ? new BackgroundCheckpoints(db, { path, busyTimeoutMs }) : undefined;
  const writes = guardedWrites(db, (action) => {
    file.assertSameFile(action);
    checkpoints?.noteWrite();
  });
  const outbox = new SqliteWebhookOutbox(db, writes, parkedLimit);
  const endpoints = new SqliteWebhookEndpoints(db, writes, outbox);
  const plants = new SqlitePlantRepository(db, outbox, writes);
  const ping = db.prepare('SELECT 1').pluck(true);
  let closed: Promise<void> | undefined;
  const storage: Storage = {
    plants,
    outbox,
    endpoints,
    portalLinks: new SqlitePortalLinks(db, writes),
    dbSystem: 'sqlite',
    joinTransaction: (executor) => hostTransactionWrites(executor, db, parkedLimit),
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
        if (owned) withSqliteErrors('close the database', () => db.close());
      })();
      return closed;
    },
  };
  // A storage's own connection refuses every statement once closed; a host's stays open, so the storage refuses itself.
  return owned ? storage : refusingAfterClose(storage);
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
async function prepare(db: BetterSqlite3.Database, migrating: boolean): Promise<void> {
  // Incremental auto-vacuum first, before anything creates a table: a new file starts with it.
  db.pragma('auto_vacuum = INCREMENTAL');
  db.pragma('journal_mode = WAL');
  // A checkpoint resets the WAL but keeps the file's largest size unless truncated: caps what stays on disk (64 MiB).
  db.pragma(`journal_size_limit = ${64 * 1024 * 1024}`);
  // With WAL, NORMAL is durable against process crashes and loses at most the last commits on power loss.
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  if (migrating) await migrate(db, MIGRATIONS);
  else checkMigrated(db, MIGRATIONS);
  // A file created before incremental auto-vacuum (reported as 2) converts with a VACUUM, checked at every start so an interrupted one is redone.
  if (db.pragma('auto_vacuum', { simple: true }) !== 2n) {
    db.pragma('auto_vacuum = INCREMENTAL');
    db.exec('VACUUM');
  }
  db.prepare('DELETE FROM plants WHERE 0').run();
}
