import { createHash } from 'node:crypto';
import type pg from 'pg';
import { StorageError } from '@plant-store/core';
import { postgresError } from './postgres-error.js';

/**
 * A statement each connection parses and plans once, then only binds and
 * runs: for the statements the webhook dispatcher runs for every delivery,
 * where parsing and planning cost as much as the work itself.
 */
export interface PreparedStatement {
  readonly name: string;
  readonly text: string;
}

/** `text` as a prepared statement, named after its text (so the name differs whenever the text, its schema included, does). */
export function prepared(text: string): PreparedStatement {
  return { name: `plant_store_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`, text };
}

type Statement = string | PreparedStatement;

/**
 * Runs this adapter's SQL on a pg pool, wrapping every failure in a
 * `StorageError` that names the action. Each call is one statement, so each
 * is atomic on its own; no call holds a connection between round trips.
 * After `close()` every call rejects.
 *
 * Statements go to `pool.query` directly: the SQL is hand-written (see
 * plant-queries.ts, outbox-queries.ts), so a query builder would only pass
 * it through, and on a list request its execution layer cost about a tenth
 * of the service's CPU (see README, Performance). `pool.query` releases a
 * client whose query failed as broken, so the pool replaces it instead of
 * lending out a connection still waiting for a reply.
 */
export class QueryRunner {
  readonly #pool: pg.Pool;
  #closing: Promise<void> | undefined;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  /** The rows `text` returns for `parameters` ($1, $2, …). */
  async rows<Row>(action: string, statement: Statement, parameters: readonly unknown[]): Promise<Row[]> {
    return (await this.#execute(action, statement, parameters)).rows as Row[];
  }

  /** How many rows `text` (an UPDATE or DELETE) changed. */
  async changes(action: string, statement: Statement, parameters: readonly unknown[]): Promise<number> {
    return (await this.#execute(action, statement, parameters)).rowCount ?? 0;
  }

  /** Ends the pool once the queries in flight are done. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= this.#pool.end().catch((error: unknown) => {
      throw postgresError('close the connection pool', error);
    });
    return this.#closing;
  }

  async #execute(action: string, statement: Statement, parameters: readonly unknown[]): Promise<pg.QueryResult> {
    if (this.#closing) throw new StorageError(`postgres storage could not ${action}: the storage is closed`);
    const values = parameters as unknown[];
    try {
      return await (typeof statement === 'string' ? this.#pool.query(statement, values) : this.#pool.query({ ...statement, values }));
    } catch (error) {
      throw postgresError(action, error);
    }
  }
}
