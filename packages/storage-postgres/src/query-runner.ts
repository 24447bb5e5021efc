import { createHash } from 'node:crypto';
import pg from 'pg';
import { StorageError } from '@plant-store/core';
import { AnswerDeadlines, type Waiting } from './answer-deadlines.js';
import { postgresError } from './postgres-error.js';
import { exactTypes } from './postgres-connection.js';

/** A statement each connection parses and plans once (the dispatcher's per-delivery statements). */
export interface PreparedStatement {
  readonly name: string;
  readonly text: string;
}

/** Named after its text, so the name differs whenever the text (its schema included) does. */
export function prepared(text: string): PreparedStatement {
  return { name: `plant_store_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`, text };
}

type Statement = string | PreparedStatement;

/** Runs one statement of a `transaction` and resolves with its rows. */
export type TransactionRows = <Row>(statement: Statement, parameters: readonly unknown[]) => Promise<Row[]>;

/**
 * Runs SQL on a pg pool, wrapping every failure in a `StorageError` that names the action. A client whose statement
 * failed other than by the server's answer goes back to the pool as broken, never lent out still waiting for a reply.
 * Statements run through pg's callback form: its promise form made every result's rows outlive young-generation GCs.
 */
export class QueryRunner {
  readonly #pool: pg.Pool;
  readonly #deadlines: AnswerDeadlines;
  readonly #ownsPool: boolean;
  #closing: Promise<void> | undefined;

  /** A pool the host gave (`ownsPool` false) is never ended: closing only stops this runner from using it. */
  constructor(pool: pg.Pool, deadlineMs: number, ownsPool = true) {
    this.#pool = pool;
    this.#deadlines = new AnswerDeadlines(deadlineMs);
    this.#ownsPool = ownsPool;
  }

  async rows<Row>(action: string, statement: Statement, parameters: readonly unknown[]): Promise<Row[]> {
    return (await this.#execute(action, statement, parameters)).rows as Row[];
  }

  async changes(action: string, statement: Statement, parameters: readonly unknown[]): Promise<number> {
    return (await this.#execute(action, statement, parameters)).rowCount ?? 0;
  }

  /** For the few writes one statement cannot make atomic, because a later statement must see what an earlier one waited for (a lock). */
  async transaction<T>(action: string, work: (rows: <Row>(statement: Statement, parameters: readonly unknown[]) => Promise<Row[]>) => Promise<T>): Promise<T> {
    const client = await this.#connect(action);
    const rows = async <Row>(statement: Statement, parameters: readonly unknown[]) => (await this.#query(client, statement, parameters)).rows as Row[];
    try {
      await this.#query(client, 'BEGIN', []);
      const result = await work(rows);
      await this.#query(client, 'COMMIT', []);
      client.release();
      return result;
    } catch (error) {
      // Rolled back, the connection is as good as new; if even that fails, it is dropped (closing it rolls back).
      const rolledBack =
        error instanceof pg.DatabaseError &&
        (await this.#query(client, 'ROLLBACK', []).then(
          () => true,
          () => false,
        ));
      client.release(rolledBack ? undefined : brokenBy(error));
      throw postgresError(action, error);
    }
  }

  close(): Promise<void> {
    if (!this.#ownsPool) this.#closing ??= Promise.resolve();
    this.#closing ??= this.#pool.end().catch((error: unknown) => {
      throw postgresError('close the connection pool', error);
    });
    return this.#closing;
  }

  async #execute(action: string, statement: Statement, parameters: readonly unknown[]): Promise<pg.QueryResult> {
    const client = await this.#connect(action);
    try {
      const result = await this.#query(client, statement, parameters);
      client.release();
      return result;
    } catch (error) {
      // An error the server answered with leaves the connection usable; anything else may leave a reply in flight.
      client.release(error instanceof pg.DatabaseError ? undefined : brokenBy(error));
      throw postgresError(action, error);
    }
  }

  async #connect(action: string): Promise<pg.PoolClient> {
    if (this.#closing) throw new StorageError(`postgres storage could not ${action}: the storage is closed`);
    try {
      return await this.#pool.connect();
    } catch (error) {
      throw postgresError(action, error);
    }
  }

  async #query(client: pg.PoolClient, statement: Statement, parameters: readonly unknown[]): Promise<pg.QueryResult> {
    const values = parameters as unknown[];
    let waiting: Waiting | undefined;
    try {
      return await new Promise<pg.QueryResult>((resolve, reject) => {
        waiting = this.#deadlines.watch(reject);
        const answered = (error: Error | null, answer: pg.QueryResult) => (error ? reject(error) : resolve(answer));
        const text = typeof statement === 'string' ? statement : statement.text;
        // No named statements on a host's connections: they would outlive the store there, and a DEALLOCATE of the host's would break them.
        const name = typeof statement === 'string' || !this.#ownsPool ? undefined : statement.name;
        // Types per statement, so a host's pool keeps its own type parsers (int8 read as bigint here, as on this storage's own pools).
        client.query({ text, name, values, types: exactTypes }, answered);
      });
    } finally {
      waiting?.done();
    }
  }
}

function brokenBy(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
