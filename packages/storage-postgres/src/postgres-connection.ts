import pg from 'pg';

/** What a connection needs, resolved from the storage options. */
export interface ConnectionSettings {
  readonly connectionString: string;
  readonly connectTimeoutMs: number;
  readonly queryTimeoutMs: number;
}

const INT8_OID = 20;

/**
 * int8 (`bigint`) read as a JS bigint, every other type as pg reads it by
 * default. Given to each pool and client (pg's `types` option) rather than
 * set with `pg.types.setTypeParser`, which would change how every pg client
 * of the host app reads int8.
 */
const exactTypes: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID && format !== 'binary' ? BigInt : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig['getTypeParser'],
};

/** How long a client waits for any answer to a statement: a second past the server's own statement timeout. */
export function answerDeadlineMs(settings: ConnectionSettings): number {
  return settings.queryTimeoutMs + 1000;
}

/**
 * Client settings shared by the pool, the migration connection and the
 * notification listener. The server cancels a statement after
 * `queryTimeoutMs` (statement_timeout, the connection stays usable); the
 * client gives up a second or two later when the server does not answer at
 * all (a lost network), so no call hangs: pg's `query_timeout` here, which
 * the migration and the notification listener use, while the query runners
 * take it off their clients and keep that deadline themselves (see
 * AnswerDeadlines).
 */
export function connectionConfig(settings: ConnectionSettings): pg.ClientConfig {
  return {
    connectionString: settings.connectionString,
    connectionTimeoutMillis: settings.connectTimeoutMs,
    statement_timeout: settings.queryTimeoutMs,
    query_timeout: answerDeadlineMs(settings),
    keepAlive: true,
    application_name: 'plant-store',
    types: exactTypes,
  };
}

const ignore = () => {};

/**
 * A pg pool that never crashes its host: an idle client whose connection dies
 * makes the pool emit 'error' (it has already dropped the client), and a
 * checked-out client whose connection dies between two queries emits 'error'
 * itself; both would be thrown as uncaught without a listener. The query in
 * flight, if any, rejects on its own, and the pool opens new connections on
 * demand, so it recovers by itself when the database is back.
 */
export function createPool(config: pg.ClientConfig, size: number): pg.Pool {
  const pool = new pg.Pool({ ...config, max: size });
  pool.on('error', ignore);
  pool.on('connect', (client) => client.on('error', ignore));
  return pool;
}
