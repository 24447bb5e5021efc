import type { Database as BetterSqlite3, Statement } from 'better-sqlite3';
import type { Compilable, Selectable } from 'kysely';
import type {
  AttemptOutcome,
  ClaimDueOptions,
  ClaimedDelivery,
  Delivery,
  DeliveryAttempt,
  ListDeliveriesQuery,
  NewDelivery,
  PendingStats,
  WebhookOutbox,
} from '@plant-store/core';
import { loadQueryBuilder, type QueryBuilder } from './query-builder.js';
import type { WebhookAttemptsTable, WebhookDeliveriesTable } from './schema.js';
import { sqliteError, withSqliteErrors } from './sqlite-error.js';

const DEFAULT_LIST_LIMIT = 100;

// One statement claims: the UPDATE takes the write lock before it reads, so
// two connections (or processes) on the same file can never lease the same
// row while its lease holds. `status = 'pending'` stays a literal so the
// partial index on due deliveries applies.
const CLAIM = (skipping: boolean) => `
  UPDATE webhook_deliveries SET lease_owner = ?, lease_expires_at = ?, updated_at = ?
  WHERE id IN (
    SELECT id FROM webhook_deliveries
    WHERE status = 'pending' AND next_attempt_at <= ?
      AND (lease_expires_at IS NULL OR lease_expires_at <= ?)
      ${skipping ? 'AND endpoint NOT IN (SELECT value FROM json_each(?))' : ''}
    ORDER BY next_attempt_at, rowid
    LIMIT ?)
  RETURNING id, tenant, endpoint, event_type, payload, created_at, attempt_count, next_attempt_at, rowid`;

interface ClaimRow {
  id: string;
  tenant: string;
  endpoint: string;
  event_type: string;
  payload: string;
  created_at: bigint;
  attempt_count: bigint;
  next_attempt_at: bigint;
  rowid: bigint;
}

/** Earliest due first, then oldest row, as the claim's ORDER BY (RETURNING does not keep it). */
const claimOrder = (a: ClaimRow, b: ClaimRow) =>
  a.next_attempt_at < b.next_attempt_at ? -1 : a.next_attempt_at > b.next_attempt_at ? 1 : a.rowid < b.rowid ? -1 : a.rowid > b.rowid ? 1 : 0;

/** Timestamps and durations are whole milliseconds (INTEGER columns); durations measured with sub-ms clocks are rounded. */
const wholeMs = (value: number) => Math.round(value);

function toAttempt(row: Selectable<WebhookAttemptsTable>): DeliveryAttempt {
  const attempt: { -readonly [K in keyof DeliveryAttempt]: DeliveryAttempt[K] } = { at: Number(row.at), durationMs: Number(row.duration_ms) };
  if (row.status_code !== null) attempt.statusCode = Number(row.status_code);
  if (row.error !== null) attempt.error = row.error;
  return attempt;
}

/** The columns every delivery row has, as the port's fields. */
type DeliveryRowCore = Pick<ClaimRow, 'id' | 'tenant' | 'endpoint' | 'event_type' | 'payload' | 'created_at'>;

function toNewDelivery(row: DeliveryRowCore): NewDelivery {
  return {
    id: row.id,
    tenant: row.tenant,
    endpoint: row.endpoint,
    eventType: row.event_type,
    payload: row.payload,
    createdAt: Number(row.created_at),
  };
}

function toDelivery(row: Selectable<WebhookDeliveriesTable>, attempts: DeliveryAttempt[]): Delivery {
  return {
    ...toNewDelivery(row),
    status: row.status,
    attemptCount: Number(row.attempt_count),
    ...(row.status === 'pending' && row.next_attempt_at !== null ? { nextAttemptAt: Number(row.next_attempt_at) } : {}),
    attempts,
  };
}

/**
 * The webhook outbox in SQLite. Claims, attempts, releases and queueing (the
 * dispatcher's and the create path's statements) are prepared once on
 * better-sqlite3; the operator queries (get, list, requeue) are built with
 * kysely, loaded on their first use.
 */
export class SqliteWebhookOutbox implements WebhookOutbox {
  readonly #db: BetterSqlite3;
  /** Runs reads in one transaction, so a delivery and its attempts come from one snapshot even with other processes writing. */
  readonly #snapshot: <T>(read: () => T) => T;
  readonly #insert: Statement;
  readonly #claim: Statement;
  readonly #claimSkipping: Statement;
  readonly #nextDueAt: Statement;
  readonly #pendingStats: Statement;
  readonly #release: Statement;
  readonly #recordAttempt: (id: string, owner: string, attempt: DeliveryAttempt, outcome: AttemptOutcome) => boolean;

  constructor(db: BetterSqlite3) {
    this.#db = db;
    this.#snapshot = (read) => db.transaction(read)();
    this.#insert = db.prepare(
      `INSERT INTO webhook_deliveries
         (id, tenant, endpoint, event_type, payload, status, attempt_count, next_attempt_at, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, 'pending', 0, ?, ?, ?)`,
    );
    this.#claim = db.prepare(CLAIM(false));
    this.#claimSkipping = db.prepare(CLAIM(true));
    this.#nextDueAt = db
      .prepare(
        `SELECT min(max(next_attempt_at, coalesce(lease_expires_at, next_attempt_at)))
         FROM webhook_deliveries WHERE status = 'pending'`,
      )
      .pluck(true);
    // Walks the partial index of pending rows only, so the delivered history
    // costs nothing; the creation times are read from those rows.
    this.#pendingStats = db
      .prepare(`SELECT count(*), min(created_at) FROM webhook_deliveries WHERE status = 'pending'`)
      .raw(true);
    // One JSON parameter however many ids (no bound-variable limit).
    this.#release = db.prepare(
      `UPDATE webhook_deliveries SET lease_owner = NULL, lease_expires_at = NULL
       WHERE id IN (SELECT value FROM json_each(?)) AND lease_owner = ?`,
    );
    const applyOutcome = db
      .prepare(
        `UPDATE webhook_deliveries
         SET status = ?, attempt_count = attempt_count + 1, next_attempt_at = ?,
             lease_owner = NULL, lease_expires_at = NULL, updated_at = ?
         WHERE id = ? AND lease_owner = ? AND status = 'pending'
         RETURNING attempt_count`,
      )
      .pluck(true);
    const insertAttempt = db.prepare(
      'INSERT INTO webhook_attempts (delivery_id, attempt, at, duration_ms, status_code, error) VALUES (?, ?, ?, ?, ?, ?)',
    );
    const record = db.transaction((id: string, owner: string, attempt: DeliveryAttempt, outcome: AttemptOutcome) => {
      const at = wholeMs(attempt.at);
      const durationMs = wholeMs(attempt.durationMs);
      const nextAttemptAt = outcome.status === 'pending' ? wholeMs(outcome.nextAttemptAt) : null;
      const number = applyOutcome.get(outcome.status, nextAttemptAt, at + durationMs, id, owner) as bigint | undefined;
      if (number === undefined) return false;
      insertAttempt.run(id, number, at, durationMs, attempt.statusCode ?? null, attempt.error ?? null);
      return true;
    });
    this.#recordAttempt = record.immediate;
  }

  /** Queues deliveries, each due at its `createdAt`. Runs inside the caller's transaction (the plant's create). */
  queue(deliveries: readonly NewDelivery[]): void {
    for (const delivery of deliveries) {
      const createdAt = wholeMs(delivery.createdAt);
      this.#insert.run(delivery.id, delivery.tenant, delivery.endpoint, delivery.eventType, delivery.payload, createdAt, createdAt, createdAt);
    }
  }

  async claimDue(options: ClaimDueOptions): Promise<ClaimedDelivery[]> {
    return withSqliteErrors('claim due deliveries', () => {
      const { owner, limit } = options;
      if (limit < 1) return [];
      const now = wholeMs(options.now);
      const leaseExpiresAt = wholeMs(options.now + options.leaseMs);
      const skip = options.skipEndpoints ?? [];
      const rows = (
        skip.length === 0
          ? this.#claim.all(owner, leaseExpiresAt, now, now, now, limit)
          : this.#claimSkipping.all(owner, leaseExpiresAt, now, now, now, JSON.stringify(skip), limit)
      ) as ClaimRow[];
      return rows.sort(claimOrder).map((row) => ({
        ...toNewDelivery(row),
        attemptCount: Number(row.attempt_count),
        leaseExpiresAt,
      }));
    });
  }

  async recordAttempt(id: string, owner: string, attempt: DeliveryAttempt, outcome: AttemptOutcome): Promise<boolean> {
    return withSqliteErrors('record the delivery attempt', () => this.#recordAttempt(id, owner, attempt, outcome));
  }

  async nextDueAt(): Promise<number | undefined> {
    return withSqliteErrors('find the next due delivery', () => {
      const at = this.#nextDueAt.get() as bigint | null;
      return at === null ? undefined : Number(at);
    });
  }

  async pendingStats(): Promise<PendingStats> {
    return withSqliteErrors('count pending deliveries', () => {
      const [count, oldest] = this.#pendingStats.get() as [bigint, bigint | null];
      return oldest === null ? { count: 0 } : { count: Number(count), oldestCreatedAt: Number(oldest) };
    });
  }

  async release(ids: readonly string[], owner: string): Promise<void> {
    withSqliteErrors('release delivery leases', () => this.#release.run(JSON.stringify(ids), owner));
  }

  async get(id: string): Promise<Delivery | undefined> {
    const { kysely } = await queryBuilder('read the delivery');
    return withSqliteErrors('read the delivery', () =>
      this.#snapshot(() => {
        const [row] = this.#all(kysely.selectFrom('webhook_deliveries').selectAll().where('id', '=', id));
        if (!row) return undefined;
        const attempts = this.#all(
          kysely.selectFrom('webhook_attempts').selectAll().where('delivery_id', '=', id).orderBy('attempt'),
        );
        return toDelivery(row, attempts.map(toAttempt));
      }),
    );
  }

  async list(query: ListDeliveriesQuery = {}): Promise<Delivery[]> {
    const { kysely, sql } = await queryBuilder('list deliveries');
    return withSqliteErrors('list deliveries', () => {
      const limit = query.limit ?? DEFAULT_LIST_LIMIT;
      if (limit < 1) return [];
      let page = kysely
        .selectFrom('webhook_deliveries')
        .orderBy('created_at', 'desc')
        .orderBy(sql`rowid`, 'desc')
        .limit(limit);
      if (query.status !== undefined) page = page.where('status', '=', query.status);
      return this.#snapshot(() => {
        const rows = this.#all(page.selectAll());
        if (rows.length === 0) return [];
        // All attempts of the page in one query (no query per delivery).
        const attempts = this.#all(
          kysely
            .selectFrom('webhook_attempts')
            .selectAll()
            .where('delivery_id', 'in', page.select('id'))
            .orderBy('delivery_id')
            .orderBy('attempt'),
        );
        const byDelivery = new Map<string, DeliveryAttempt[]>();
        for (const attempt of attempts) {
          let list = byDelivery.get(attempt.delivery_id);
          if (!list) byDelivery.set(attempt.delivery_id, (list = []));
          list.push(toAttempt(attempt));
        }
        return rows.map((row) => toDelivery(row, byDelivery.get(row.id) ?? []));
      });
    });
  }

  async requeue(id: string, now: number): Promise<boolean> {
    const { kysely } = await queryBuilder('requeue the delivery');
    return withSqliteErrors('requeue the delivery', () => {
      const query = kysely
        .updateTable('webhook_deliveries')
        .set({ status: 'pending', next_attempt_at: wholeMs(now), lease_owner: null, lease_expires_at: null, updated_at: wholeMs(now) })
        .where('id', '=', id)
        .where('status', '=', 'failed');
      return this.#run(query) > 0;
    });
  }

  // kysely builds the operator queries; they run synchronously on the same
  // connection as the prepared statements, so no other call can interleave
  // between the statements of one read (kysely's own executor is async).
  #all<Row>(query: Compilable<Row>): Row[] {
    const { sql: text, parameters } = query.compile();
    return this.#db.prepare(text).all(...parameters) as Row[];
  }

  #run(query: Compilable<unknown>): number {
    const { sql: text, parameters } = query.compile();
    return this.#db.prepare(text).run(...parameters).changes;
  }
}

/** The query builder, its loading failure (a broken install) reported as a `StorageError` of the action. */
async function queryBuilder(action: string): Promise<QueryBuilder> {
  try {
    return await loadQueryBuilder();
  } catch (error) {
    throw sqliteError(action, error);
  }
}
