import pg from 'pg';
import { StorageError } from '@plant-store/core';
import type { ReclaimSpaceOptions } from '@plant-store/core/adapter';
import { postgresError } from './postgres-error.js';

/** Longest a VACUUM may run, in ms (it reads whole indexes); the next pruning run tries again. */
const VACUUM_TIMEOUT_MS = 10 * 60_000;

/** Paces the VACUUM's I/O as autovacuum's is, so requests and deliveries do not queue behind it. */
const THROTTLED = "SET vacuum_cost_delay = '2ms'";

const ignore = () => {};

/** On a connection of its own: a VACUUM cannot run in a transaction, needs a longer timeout, and must not hold a pooled one. */
export class Vacuum {
  readonly #config: pg.ClientConfig;
  readonly #sql: string;
  readonly #clients = new Set<pg.Client>();
  #running: Promise<void> | undefined;
  #closed = false;

  constructor(config: pg.ClientConfig, sql: string) {
    this.#config = { ...config, statement_timeout: VACUUM_TIMEOUT_MS, query_timeout: VACUUM_TIMEOUT_MS + 1000 };
    this.#sql = sql;
  }

  /** Resolves early (without error) when `signal` is aborted. */
  run(options: ReclaimSpaceOptions = {}): Promise<void> {
    if (this.#closed) return Promise.reject(new StorageError('postgres storage could not vacuum its tables: the storage is closed'));
    this.#running ??= this.#vacuum(options.signal).finally(() => (this.#running = undefined));
    return this.#running;
  }

  /** Drops the connection of a VACUUM in progress instead of waiting for it (the server ends it). Idempotent. */
  close(): void {
    this.#closed = true;
    for (const client of this.#clients) void client.end().catch(ignore);
  }

  async #vacuum(signal: AbortSignal | undefined): Promise<void> {
    if (signal?.aborted) return;
    const client = new pg.Client(this.#config);
    // A connection that dies makes the query fail; the client's own 'error' must not crash the process.
    client.on('error', ignore);
    this.#clients.add(client);
    const drop = () => void client.end().catch(ignore);
    signal?.addEventListener('abort', drop, { once: true });
    try {
      await client.connect();
      await client.query(THROTTLED);
      await client.query(this.#sql);
    } catch (error) {
      // Cut short on purpose (the pruner stopped, the storage closed): nothing failed.
      if (signal?.aborted || this.#closed) return;
      throw postgresError('vacuum its tables', error);
    } finally {
      signal?.removeEventListener('abort', drop);
      this.#clients.delete(client);
      void client.end().catch(ignore);
    }
  }
}
