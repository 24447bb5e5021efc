import { CompiledQuery } from 'kysely';
import type pg from 'pg';
import { ConfigurationError } from '@plant-store/core';
import { exactTypes } from './postgres-connection.js';
import { postgresError } from './postgres-error.js';
import type { StatementRows } from './postgres-plant-writes.js';

/** The part of a kysely `Kysely`/`Transaction` the store uses: raw statements on its connection. */
interface KyselyExecutor {
  readonly isTransaction: boolean;
  executeQuery<Row>(query: CompiledQuery<Row>): Promise<{ rows: Row[] }>;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

const isKysely = (value: unknown): value is KyselyExecutor => isObject(value) && typeof value.executeQuery === 'function' && 'isTransaction' in value;

const isPgClient = (value: unknown): value is pg.ClientBase => isObject(value) && typeof value.query === 'function' && typeof value.connect === 'function';

/**
 * Statements on the host's open transaction: a kysely `Transaction`, or a `pg` client (a `PoolClient` or `Client`)
 * between the host's `BEGIN` and `COMMIT`. Plain text, never named prepared statements: the host's connection
 * keeps no state of the store's. A pool, or a kysely instance outside a transaction, is refused: each statement
 * would commit on its own, on any connection.
 */
export function hostStatementRows(executor: unknown): StatementRows {
  if (isKysely(executor)) {
    if (!executor.isTransaction)
      throw notInTransaction('a kysely instance outside a transaction: pass the `trx` of `db.transaction().execute(async (trx) => …)`');
    return async (action, statement, parameters) => {
      try {
        return (await executor.executeQuery(CompiledQuery.raw(statement.text, [...parameters]))).rows as never[];
      } catch (error) {
        throw postgresError(action, error);
      }
    };
  }
  if (isPgClient(executor)) {
    if (typeof (executor as { totalCount?: unknown }).totalCount === 'number') {
      throw notInTransaction('a pg Pool: pass the client of `await pool.connect()` after its `BEGIN`');
    }
    return async (action, statement, parameters) => {
      try {
        return (await executor.query({ text: statement.text, values: [...parameters], types: exactTypes })).rows;
      } catch (error) {
        throw postgresError(action, error);
      }
    };
  }
  throw notInTransaction('neither a pg client nor a kysely Transaction');
}

function notInTransaction(given: string): ConfigurationError {
  return new ConfigurationError(
    'executor',
    `postgres storage writes in a host's transaction on a pg client (inside BEGIN … COMMIT) or a kysely Transaction; got ${given}`,
  );
}
