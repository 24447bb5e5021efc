import pg from 'pg';

interface ConnectionSettings {
  readonly connectionString: string;
  readonly connectTimeoutMs: number;
  readonly queryTimeoutMs: number;
}

const INT8_OID = 20;

/** int8 read as a JS bigint; given to this storage's clients only, leaving the host app's pg parsers alone. */
export const exactTypes: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID && format !== 'binary' ? BigInt : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig['getTypeParser'],
};

/** How long a client waits for any answer to a statement: a second past the server's own statement timeout. */
export const answerDeadlineMs = (settings: ConnectionSettings) => settings.queryTimeoutMs + 1000;

/** The server cancels a statement after `queryTimeoutMs`; the client gives up a second later (the query runners keep that deadline themselves). */
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

/** A dying connection makes the pool or its client emit 'error', which would crash the host; the query in flight rejects anyway. */
export function createPool(config: pg.ClientConfig, size: number): pg.Pool {
  const pool = new pg.Pool({ ...config, max: size });
  pool.on('error', ignore);
  pool.on('connect', (client) => client.on('error', ignore));
  return pool;
}
