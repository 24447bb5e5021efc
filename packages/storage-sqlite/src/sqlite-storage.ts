import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect } from 'kysely';
import type { Storage } from '@plant-store/core';
import { migrationProvider } from './migrations/migration-provider.js';
import type { Database } from './schema.js';
import { sqliteError, withSqliteErrors } from './sqlite-error.js';
import { SqlitePlantRepository } from './sqlite-plant-repository.js';
import { SqliteWebhookOutbox } from './sqlite-webhook-outbox.js';

export interface SqliteStorageOptions {
  /** Database file; its folder is created when missing. `':memory:'` keeps everything in process memory. */
  readonly path: string;
  /** How long a write waits for another connection's lock (another process on the same file) before failing, in ms. @default 5000 */
  readonly busyTimeoutMs?: number;
}

/**
 * Storage in one SQLite file (better-sqlite3, kysely for schema and
 * migrations). Opens the file, sets WAL and the other pragmas, and applies
 * pending migrations before resolving, which is why it is async. Several
 * storages, also in several processes, may share a file: claims and
 * transactions stay atomic across them. Rejects with a `StorageError` when
 * the file cannot be opened or migrated.
 */
export async function sqliteStorage(options: SqliteStorageOptions): Promise<Storage> {
  const db = open(options);
  const kysely = new Kysely<Database>({ dialect: new SqliteDialect({ database: db }) });
  try {
    await migrate(db, kysely);
    return assemble(db, kysely);
  } catch (error) {
    await shutDown(db, kysely).catch(() => {});
    throw sqliteError(`open ${options.path}`, error);
  }
}

/** The storage over an open, migrated database: statements are prepared here, once. */
function assemble(db: BetterSqlite3.Database, kysely: Kysely<Database>): Storage {
  const outbox = new SqliteWebhookOutbox(db, kysely);
  const plants = new SqlitePlantRepository(db, outbox);
  const ping = db.prepare('SELECT 1').pluck(true);
  let closed: Promise<void> | undefined;
  return {
    plants,
    outbox,
    async ping() {
      withSqliteErrors('answer a ping', () => ping.get());
    },
    close() {
      closed ??= shutDown(db, kysely).catch((error: unknown) => {
        throw sqliteError('close the database', error);
      });
      return closed;
    },
  };
}

/** Destroying kysely closes the handle; it skips that when kysely never ran a query, so close it then. */
async function shutDown(db: BetterSqlite3.Database, kysely: Kysely<Database>): Promise<void> {
  await kysely.destroy();
  if (db.open) db.close();
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

/**
 * Applies pending migrations inside one IMMEDIATE transaction: kysely's
 * SQLite migration lock is per connection only, so the write lock is what
 * keeps two processes opening a new file at once from migrating twice.
 */
async function migrate(db: BetterSqlite3.Database, kysely: Kysely<Database>): Promise<void> {
  const migrator = new Migrator({ db: kysely, provider: migrationProvider, disableTransactions: true });
  db.exec('BEGIN IMMEDIATE');
  try {
    const { error } = await migrator.migrateToLatest();
    if (error) throw error;
    db.exec('COMMIT');
  } catch (error) {
    if (db.inTransaction) db.exec('ROLLBACK');
    throw error;
  }
}
