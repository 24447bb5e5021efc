import pg from 'pg';
import { ConfigurationError } from '@plant-store/core';
import { parkedLimitOption, type Storage } from '@plant-store/core/adapter';
import { checkMigrated, migrate } from './migrations/migrate.js';
import { MIGRATIONS } from './migrations/migrations.js';
import { NotificationListener } from './notification-listener.js';
import { announcer, OUTBOX_CHANNEL } from './outbox-channel.js';
import { vacuumSql } from './outbox-queries.js';
import { Vacuum } from './vacuum.js';
import { answerDeadlineMs, connectionConfig, createPool, exactTypes } from './postgres-connection.js';
import { postgresError } from './postgres-error.js';
import { PostgresPlantRepository } from './postgres-plant-repository.js';
import { PostgresPortalLinks } from './postgres-portal-links.js';
import { PostgresWebhookEndpoints } from './postgres-webhook-endpoints.js';
import { PostgresWebhookOutbox } from './postgres-webhook-outbox.js';
import { prepared, QueryRunner } from './query-runner.js';
import { hostStatementRows } from './host-executor.js';
import { parkedBound } from './parked-deliveries.js';
import { tablesIn } from './tables.js';

export interface PostgresStorageOptions {
  /** Where the database is: `postgres://user:password@host:port/database` (pg's connection string, `?sslmode=…` included). Give this or `pool`. */
  readonly connectionString?: string;
  /**
   * The host's own `pg.Pool` instead of a connection string: the store runs its queries on it and never ends it, nor
   * changes a setting of its connections (it sets its int8 parsing per statement). It opens, with the pool's own
   * settings, a connection of its own to LISTEN while a dispatcher runs, one to migrate at start, and one to VACUUM
   * now and then. `poolSize` and the server-side statement timeout are then the pool's.
   */
  readonly pool?: pg.Pool;
  /** Most connections open for queries at once; one more is opened while a dispatcher watches for new deliveries. @default 10 */
  readonly poolSize?: number;
  /** Schema holding the tables, created when missing: several deployments or test runs can share one database. @default 'public' */
  readonly schema?: string;
  /** Whether to create a missing schema and apply pending migrations; with `false`, a schema missing or not at this version is refused. @default true */
  readonly migrate?: boolean;
  /** How long to wait for a connection (a new one, or a free one from the pool) before failing, in ms. @default 5000 */
  readonly connectTimeoutMs?: number;
  /** Longest a statement may run, in ms: the server cancels it then, and the client gives up a second later when the server does not answer at all. @default 10000 */
  readonly queryTimeoutMs?: number;
  /** Parked messages kept per disabled endpoint; past it the oldest are dropped and counted on the endpoint (`parkedDropped`). 0 keeps none. @default DEFAULT_PARKED_LIMIT (10,000) */
  readonly parkedLimit?: number;
}

/**
 * Storage in PostgreSQL, for several service instances on one database; resolves once migrated, rejects with a
 * `StorageError` when the database cannot be reached or migrated, a `ConfigurationError` for invalid options. A lost
 * database makes calls reject with a `StorageError` promptly, and the pool reconnects when it is back.
 */
export async function postgresStorage(options: PostgresStorageOptions): Promise<Storage> {
  const schema = options.schema ?? 'public';
  const poolSize = positiveInteger('poolSize', options.poolSize ?? 10);
  const parkedLimit = parkedLimitOption(options.parkedLimit);
  const host = hostPool(options);
  const settings = {
    connectionString: options.connectionString ?? '',
    connectTimeoutMs: positiveInteger('connectTimeoutMs', options.connectTimeoutMs ?? 5000),
    queryTimeoutMs: positiveInteger('queryTimeoutMs', options.queryTimeoutMs ?? 10_000),
  };
  // The store's own connections (migrations, LISTEN, VACUUM) take the host pool's settings, with this storage's int8 parsing.
  const config = host ? { ...(host as { options?: pg.ClientConfig }).options, types: exactTypes } : connectionConfig(settings);
  if (schema === '') throw new ConfigurationError('schema', 'must not be empty');
  const where = host ? `through the given pool (schema ${schema})` : `at ${redacted(settings.connectionString)} (schema ${schema})`;
  try {
    if (host) await answers(host);
    await (options.migrate === false ? checkMigrated : migrate)(config, schema, MIGRATIONS);
  } catch (error) {
    throw postgresError(`open the database ${where}`, error);
  }
  const deadlineMs = answerDeadlineMs(settings);
  const runners = host
    ? { runner: new QueryRunner(host, deadlineMs, false), dispatch: new QueryRunner(host, deadlineMs, false) }
    : ownRunners(config, deadlineMs, poolSize);
  return assemble(config, runners, schema, parkedLimit);
}

/** The host's pool, when given instead of a connection string (exactly one of them). */
function hostPool(options: PostgresStorageOptions): pg.Pool | undefined {
  const { pool, connectionString } = options;
  if (pool !== undefined && connectionString !== undefined) throw new ConfigurationError('pool', 'give either a pool or a connectionString, not both');
  if (pool === undefined) {
    if (typeof connectionString !== 'string') throw new ConfigurationError('connectionString', 'is required (or give a pg.Pool as pool)');
    return undefined;
  }
  const candidate = pool as unknown as Record<string, unknown>;
  if (typeof candidate.connect !== 'function' || typeof candidate.totalCount !== 'number' || typeof candidate.options !== 'object') {
    throw new ConfigurationError('pool', 'must be a pg.Pool (new pg.Pool({ … }))');
  }
  return pool;
}

/** The host's pool lends a connection that answers (the store never changes it; see QueryRunner). */
async function answers(pool: pg.Pool): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('SELECT 1');
  } finally {
    client.release();
  }
}

/** Pools of the storage's own. The dispatcher's statements commit without waiting for the WAL flush: one lost in a crash only means a message sent again, which at-least-once delivery allows. Plant writes stay fully durable. */
function ownRunners(config: pg.ClientConfig, deadlineMs: number, poolSize: number): { runner: QueryRunner; dispatch: QueryRunner } {
  return {
    runner: queryRunner(config, deadlineMs, poolSize),
    dispatch: queryRunner({ ...config, options: '-c synchronous_commit=off' }, deadlineMs, Math.max(2, Math.ceil(poolSize / 2))),
  };
}

/** The storage over a migrated schema. */
function assemble(config: pg.ClientConfig, { runner, dispatch }: { runner: QueryRunner; dispatch: QueryRunner }, schema: string, parkedLimit: number): Storage {
  const tables = tablesIn(schema);
  const bound = parkedBound(tables, parkedLimit);
  const listener = new NotificationListener({ client: () => new pg.Client(config), channel: OUTBOX_CHANNEL });
  const vacuum = new Vacuum(config, vacuumSql(tables));
  // New deliveries in this schema (and a reconnect, which may have missed some) wake the watcher.
  const newDeliveries = (wake: () => void) => listener.subscribe((payload) => (payload === undefined || payload === schema ? wake() : undefined));
  const outbox = new PostgresWebhookOutbox({ runner, dispatch, vacuum }, tables, bound, newDeliveries);
  const plants = new PostgresPlantRepository(
    runner,
    tables,
    announcer(() => runner.rows('announce new deliveries', 'SELECT pg_notify($1, $2)', [OUTBOX_CHANNEL, schema])),
    bound,
  );
  return {
    plants,
    outbox,
    endpoints: new PostgresWebhookEndpoints(runner, tables, outbox, { schema, listener }),
    portalLinks: new PostgresPortalLinks(runner, tables),
    dbSystem: 'postgresql',
    joinTransaction(executor) {
      const rows = hostStatementRows(executor);
      // NOTIFY inside the host's transaction: PostgreSQL delivers it at the commit, and drops it on a rollback.
      const writes = plants.writesOn(rows, () => rows('announce new deliveries', prepared('SELECT pg_notify($1, $2)'), [OUTBOX_CHANNEL, schema]));
      return {
        mode: 'async',
        create: (tenant, plant, deliveries, event) => writes.create(tenant, plant, deliveries, event),
        delete: (tenant, id, event) => writes.delete(tenant, id, event),
      };
    },
    async ping() {
      await runner.rows('answer a ping', 'SELECT 1', []);
    },
    async close() {
      listener.close();
      vacuum.close();
      await Promise.all([runner.close(), dispatch.close()]);
    },
  };
}

/** A runner on a pool of its own. It keeps the answer deadline itself (see AnswerDeadlines), so its clients run without pg's `query_timeout`. */
function queryRunner(config: pg.ClientConfig, deadlineMs: number, size: number): QueryRunner {
  return new QueryRunner(createPool({ ...config, query_timeout: undefined }, size), deadlineMs);
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) throw new ConfigurationError(name, `must be a positive integer, got ${value}`);
  return value;
}

/** The connection string without its password, for messages. */
function redacted(connectionString: string): string {
  try {
    const url = new URL(connectionString);
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return 'the configured connection string';
  }
}
