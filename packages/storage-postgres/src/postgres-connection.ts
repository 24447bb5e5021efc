import pg from 'pg';

interface ConnectionSettings {
  readonly connectionString: string;
  readonly connectTimeoutMs: number;
  readonly queryTimeoutMs: number;
}

const INT8_OID = 20;

/** int8 read as a JS bigint; given to this storage's clients only, leaving the host app's pg parsers alone. */
const exactTypes: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID && format !== 'binary' ? BigInt : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig['getTypeParser'],
};

/** How long a client waits for any answer to a statement: a second past the server's own statement timeout. */
export function answerDeadlineMs(settings: ConnectionSettings): number {
  return settings.queryTimeoutMs + 1000;
}

/**
 * Client settings of every connection. The server cancels a statement after `queryTimeoutMs`; the client gives up
 * a second later when the server does not answer at all (the query runners keep that deadline themselves).
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
 * A pg pool that never crashes its host: a dying connection makes the pool or its client emit 'error', uncaught
 * without a listener. The query in flight rejects on its own, and the pool reconnects on demand.
 */
export function createPool(config: pg.ClientConfig, size: number): pg.Pool {
  const pool = new pg.Pool({ ...config, max: size });
  pool.on('error', ignore);
  pool.on('connect', (client) => client.on('error', ignore));
  return pool;
}
