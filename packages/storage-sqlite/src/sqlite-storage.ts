import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import type { Storage } from '@plant-store/core';
import { migrate } from './migrations/migrate.js';
import { MIGRATIONS } from './migrations/migrations.js';
import { sqliteError, withSqliteErrors } from './sqlite-error.js';
import { SqlitePlantRepository } from './sqlite-plant-repository.js';
import { SqliteWebhookEndpoints } from './sqlite-webhook-endpoints.js';
import { SqliteWebhookOutbox } from './sqlite-webhook-outbox.js';

export interface SqliteStorageOptions {
  /** Database file; its folder is created when missing. `':memory:'` keeps everything in process memory. */
  readonly path: string;
  /** How long a write waits for another connection's lock (another process on the same file) before failing, in ms. @default 5000 */
  readonly busyTimeoutMs?: number;
}

/**
 * Storage in one SQLite file (better-sqlite3; kysely's Migrator applies the
 * schema, kysely builds the operator queries). Opens the file, sets WAL and
 * the other pragmas, and applies pending migrations (see migrations/) before
 * resolving, which is why it is async. Several storages,
 * also in several processes, may share a file: claims and transactions stay
 * atomic across them. Rejects with a `StorageError` when the file cannot be
 * opened or migrated.
 */
export async function sqliteStorage(options: SqliteStorageOptions): Promise<Storage> {
  const db = open(options);
  try {
    await migrate(db, MIGRATIONS);
    return assemble(db);
  } catch (error) {
    if (db.open) db.close();
    throw sqliteError(`open ${options.path}`, error);
  }
}

/** The storage over an open, migrated database: statements are prepared here, once. */
function assemble(db: BetterSqlite3.Database): Storage {
  const outbox = new SqliteWebhookOutbox(db);
  const endpoints = new SqliteWebhookEndpoints(db);
  const plants = new SqlitePlantRepository(db, outbox, endpoints);
  const ping = db.prepare('SELECT 1').pluck(true);
  let closed: Promise<void> | undefined;
  return {
    plants,
    outbox,
    endpoints,
    async ping() {
      withSqliteErrors('answer a ping', () => ping.get());
    },
    close() {
      closed ??= (async () => {
        try {
          db.close();
        } catch (error) {
          throw sqliteError('close the database', error);
        }
      })();
      return closed;
    },
  };
}

function open(options: SqliteStorageOptions): BetterSqlite3.Database {
  const inMemory = options.path === ':memory:' || options.path === '';
  return withSqliteErrors(`open ${options.path}`, () => {
    if (!inMemory && !options.path.startsWith('file:')) mkdirSync(dirname(resolve(options.path)), { recursive: true });
    const db = new BetterSqlite3(options.path);
    try {
      // Every INTEGER is read as a bigint: plant ids are int64 and must never
      // pass through a double. Other integer columns are converted explicitly.
      db.defaultSafeIntegers(true);
      // busy_timeout first: switching to WAL may wait for another process.
      db.pragma(`busy_timeout = ${Math.max(0, Math.trunc(options.busyTimeoutMs ?? 5000))}`);
      db.pragma('journal_mode = WAL');
      // With WAL, NORMAL is durable against process crashes and loses at most the last commits on power loss.
      db.pragma('synchronous = NORMAL');
      db.pragma('foreign_keys = ON');
      return db;
    } catch (error) {
      db.close();
      throw error;
    }
  });
}
