import { CompiledQuery, type Kysely } from 'kysely';
import { StorageError } from '@plant-store/core';
import { postgresError } from './postgres-error.js';

/**
 * Runs this adapter's SQL through kysely (PostgresDialect over the pg pool),
 * wrapping every failure in a `StorageError` that names the action. Each
 * call is one statement, so each is atomic on its own; no call holds a
 * connection between round trips. After `close()` every call rejects.
 */
export class QueryRunner {
  readonly #kysely: Kysely<unknown>;
  #closing: Promise<void> | undefined;

  constructor(kysely: Kysely<unknown>) {
    this.#kysely = kysely;
  }

  /** The rows `text` returns for `parameters` ($1, $2, …). */
  async rows<Row>(action: string, text: string, parameters: readonly unknown[]): Promise<Row[]> {
    return (await this.#execute<Row>(action, text, parameters)).rows;
  }

  /** How many rows `text` (an UPDATE or DELETE) changed. */
  async changes(action: string, text: string, parameters: readonly unknown[]): Promise<number> {
    return Number((await this.#execute(action, text, parameters)).numAffectedRows ?? 0n);
  }

  /** Ends the pool once the queries in flight are done. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= this.#kysely.destroy().catch((error: unknown) => {
      throw postgresError('close the connection pool', error);
    });
    return this.#closing;
  }

  async #execute<Row>(action: string, text: string, parameters: readonly unknown[]) {
    if (this.#closing) throw new StorageError(`postgres storage could not ${action}: the storage is closed`);
    try {
      return await this.#kysely.executeQuery<Row>(CompiledQuery.raw(text, [...parameters]));
    } catch (error) {
      throw postgresError(action, error);
    }
  }
}
