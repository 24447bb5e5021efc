import type { Database as BetterSqlite3, Statement } from 'better-sqlite3';
import type { Compilable, Selectable } from 'kysely';
import type { Delivery, DeliveryAttempt, PendingStats } from '@plant-store/core';
import type {
  AttemptOutcome,
  ClaimDueOptions,
  ClaimedDelivery,
  EndpointAttemptStats,
  ListDeliveriesQuery,
  NewDelivery,
  TenantDeliveriesQuery,
  PruneDeliveriesOptions,
  WebhookOutbox,
} from '@plant-store/core/adapter';
import { ENDPOINT_DELETED_ERROR, ENDPOINT_DISABLED_ERROR } from '@plant-store/core/adapter';
import { loadQueryBuilder, type QueryBuilder } from './query-builder.js';
import type { WebhookAttemptsTable, WebhookDeliveriesTable } from './schema.js';
import { sqliteError, withSqliteErrors, withSqliteWrite, type GuardedWrites } from './sqlite-error.js';

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
      ${skipping ? 'AND endpoint_id NOT IN (SELECT value FROM json_each(?))' : ''}
    ORDER BY next_attempt_at, rowid
    LIMIT ?)
  RETURNING id, tenant, endpoint_id, event_type, payload, created_at, traceparent, attempt_count, next_attempt_at, rowid`;

/** The listing position of a tenant's endpoint delivery (a keyset cursor). */
const TENANT_CURSOR = `SELECT created_at, rowid FROM webhook_deliveries WHERE id = ? AND tenant = ? AND substr(endpoint_id, 1, 3) = 'ep_'`;

/** Back to pending whatever the state, due now; a lease in flight is left to end by itself. */
const RESEND = `UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = ?, updated_at = ? WHERE id = ?`;

/**
 * The attempts to one endpoint since the earliest window start: its
 * deliveries updated since then (every attempt moves `updated_at` to its
 * end, so they hold every attempt made since), found through the index on
 * (endpoint_id, updated_at). Named parameters: the endpoint id, the earliest start. Left out:
 * interrupted attempts, and those a delete or disable of the endpoint wrote.
 */
const ENDPOINT_ATTEMPTS = `
  SELECT a.at, coalesce(a.status_code BETWEEN 200 AND 299, 0) AS ok, a.status_code
  FROM webhook_attempts AS a JOIN webhook_deliveries AS d ON d.id = a.delivery_id
  WHERE d.endpoint_id = @endpoint AND d.updated_at >= @earliest AND a.at >= @earliest AND a.interrupted = 0
    AND coalesce(a.error, '') NOT IN ('${ENDPOINT_DELETED_ERROR}', '${ENDPOINT_DISABLED_ERROR}')`;

/** Succeeded and failed counts per window (`@w0`, `@w1`, … its starts), then the last attempt's time and status. */
const endpointStatsSql = (windows: number) => `
  WITH attempts AS (${ENDPOINT_ATTEMPTS})
  SELECT ${Array.from({ length: windows }, (_, index) => `sum(CASE WHEN at >= @w${index} THEN ok ELSE 0 END), sum(CASE WHEN at >= @w${index} THEN 1 - ok ELSE 0 END)`).join(', ')},
    (SELECT at FROM attempts ORDER BY at DESC LIMIT 1), (SELECT status_code FROM attempts ORDER BY at DESC LIMIT 1)
  FROM attempts`;

/** One delivery queued on its own (a test event), with its test flag. */
const ENQUEUE = `
  INSERT INTO webhook_deliveries
    (id, tenant, endpoint_id, event_type, payload, status, attempt_count, next_attempt_at, created_at, updated_at, test)
  VALUES (?, ?, ?, ?, ?, 'pending', 0, ?, ?, ?, ?)`;

const REQUEUE_FAILED_SINCE = `
  UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = ?, lease_owner = NULL, lease_expires_at = NULL, updated_at = ?
  WHERE endpoint_id = ? AND status = 'failed' AND created_at >= ?`;

// Finished deliveries by finish time (updated_at: the end of the last
// attempt). The literal status list matches the partial index's WHERE, which
// is what lets SQLite use it.
const PRUNABLE = `
  SELECT id FROM webhook_deliveries
  WHERE status IN ('delivered', 'failed') AND updated_at < ?
  ORDER BY updated_at LIMIT ?`;

/** Free pages handed back to the file system after each prune batch (about what a batch of deliveries frees). */
const VACUUM_PAGES_PER_PRUNE = 2_000;

interface ClaimRow {
  id: string;
  tenant: string;
  endpoint_id: string;
  event_type: string;
  payload: string;
  created_at: bigint;
  traceparent: string | null;
  attempt_count: bigint;
  next_attempt_at: bigint;
  rowid: bigint;
}

/** Earliest due first, then oldest row, as the claim's ORDER BY (RETURNING does not keep it). */
const claimOrder = (a: ClaimRow, b: ClaimRow) =>
  a.next_attempt_at < b.next_attempt_at ? -1 : a.next_attempt_at > b.next_attempt_at ? 1 : a.rowid < b.rowid ? -1 : a.rowid > b.rowid ? 1 : 0;

type RecordAttempt = (id: string, owner: string, attempt: DeliveryAttempt, outcome: AttemptOutcome) => boolean;

/** Timestamps and durations are whole milliseconds (INTEGER columns); durations measured with sub-ms clocks are rounded. */
const wholeMs = (value: number) => Math.round(value);

function toAttempt(row: Selectable<WebhookAttemptsTable>): DeliveryAttempt {
  const attempt: { -readonly [K in keyof DeliveryAttempt]: DeliveryAttempt[K] } = { at: Number(row.at), durationMs: Number(row.duration_ms) };
  if (row.status_code !== null) attempt.statusCode = Number(row.status_code);
  if (row.error !== null) attempt.error = row.error;
  if (row.interrupted !== 0n) attempt.interrupted = true;
  if (row.response !== null) attempt.response = row.response;
  return attempt;
}

/** The columns every delivery row has, as the port's fields. */
type DeliveryRowCore = Pick<ClaimRow, 'id' | 'tenant' | 'endpoint_id' | 'event_type' | 'payload' | 'created_at' | 'traceparent'>;

function toNewDelivery(row: DeliveryRowCore): NewDelivery {
  return {
    id: row.id,
    tenant: row.tenant,
    endpointId: row.endpoint_id,
    eventType: row.event_type,
    payload: row.payload,
    createdAt: Number(row.created_at),
    ...(row.traceparent === null ? {} : { traceparent: row.traceparent }),
  };
}

function toDelivery(row: Selectable<WebhookDeliveriesTable>, attempts: DeliveryAttempt[]): Delivery {
  return {
    ...toNewDelivery(row),
    ...(row.test === 1n ? { test: true as const } : {}),
    status: row.status,
    // Every attempt, interrupted ones included (attempt_count leaves those out: it drives the retry schedule).
    attemptCount: attempts.length,
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
  readonly #file: GuardedWrites;
  /** Runs reads in one transaction, so a delivery and its attempts come from one snapshot even with other processes writing. */
  readonly #snapshot: <T>(read: () => T) => T;
  readonly #insert: Statement;
  readonly #claim: Statement;
  readonly #claimSkipping: Statement;
  readonly #nextDueAt: Statement;
  readonly #pendingStats: Statement;
  readonly #release: Statement;
  readonly #recordAttempt: RecordAttempt;
  readonly #prune: (olderThan: number, limit: number) => number;

  constructor(db: BetterSqlite3, file: GuardedWrites) {
    this.#db = db;
    this.#file = file;
    this.#snapshot = (read) => db.transaction(read)();
    this.#insert = db.prepare(
      `INSERT INTO webhook_deliveries
         (id, tenant, endpoint_id, event_type, payload, status, attempt_count, next_attempt_at, created_at, updated_at, traceparent)
       VALUES (?, ?, ?, ?, ?, 'pending', 0, ?, ?, ?, ?)`,
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
    this.#recordAttempt = prepareRecordAttempt(db);
    this.#prune = preparePrune(db);
  }

  /** Queues deliveries, each due at its `createdAt`. Runs inside the caller's transaction (the plant's create). */
  queue(deliveries: readonly NewDelivery[]): void {
    for (const delivery of deliveries) {
      const createdAt = wholeMs(delivery.createdAt);
      const { traceparent = null } = delivery;
      this.#insert.run(delivery.id, delivery.tenant, delivery.endpointId, delivery.eventType, delivery.payload, createdAt, createdAt, createdAt, traceparent);
    }
  }

  async enqueue(delivery: NewDelivery): Promise<void> {
    withSqliteWrite(this.#file, 'queue the delivery', () => {
      const createdAt = wholeMs(delivery.createdAt);
      const { id, tenant, endpointId, eventType, payload } = delivery;
      this.#db.prepare(ENQUEUE).run(id, tenant, endpointId, eventType, payload, createdAt, createdAt, createdAt, delivery.test ? 1 : 0);
    });
  }

  async claimDue(options: ClaimDueOptions): Promise<ClaimedDelivery[]> {
    return withSqliteWrite(this.#file, 'claim due deliveries', () => {
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
    return withSqliteWrite(this.#file, 'record the delivery attempt', () => this.#recordAttempt(id, owner, attempt, outcome));
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
    withSqliteWrite(this.#file, 'release delivery leases', () => this.#release.run(JSON.stringify(ids), owner));
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

  async listForTenant(query: TenantDeliveriesQuery): Promise<Delivery[] | undefined> {
    return withSqliteErrors('list deliveries', () =>
      this.#snapshot(() => {
        const { tenant, endpointId, status, eventType, since, until, after } = query;
        const cursor = after === undefined ? undefined : (this.#db.prepare(TENANT_CURSOR).get(after, tenant) as { created_at: bigint; rowid: bigint } | undefined);
        if (after !== undefined && !cursor) return undefined;
        const conditions = [
          `tenant = ? AND substr(endpoint_id, 1, 3) = 'ep_'`,
          ...(endpointId !== undefined ? ['endpoint_id = ?'] : []),
          ...(status !== undefined ? ['status = ?'] : []),
          ...(eventType !== undefined ? ['event_type = ?'] : []),
          ...(since !== undefined ? ['created_at >= ?'] : []),
          ...(until !== undefined ? ['created_at < ?'] : []),
          ...(cursor ? ['(created_at, rowid) < (?, ?)'] : []),
        ];
        const parameters: unknown[] = [tenant, ...(endpointId !== undefined ? [endpointId] : []), ...(status !== undefined ? [status] : [])];
        if (eventType !== undefined) parameters.push(eventType);
        if (since !== undefined) parameters.push(Math.ceil(since));
        if (until !== undefined) parameters.push(Math.ceil(until));
        if (cursor) parameters.push(cursor.created_at, cursor.rowid);
        const text = `SELECT * FROM webhook_deliveries WHERE ${conditions.join(' AND ')} ORDER BY created_at DESC, rowid DESC LIMIT ?`;
        const rows = this.#db.prepare(text).all(...parameters, Math.max(0, query.limit)) as Selectable<WebhookDeliveriesTable>[];
        return this.#withAttempts(rows);
      }),
    );
  }

  async resend(id: string, now: number): Promise<boolean> {
    return withSqliteWrite(this.#file, 'resend the delivery', () => this.#db.prepare(RESEND).run(wholeMs(now), wholeMs(now), id).changes > 0);
  }

  async endpointAttemptStats(endpointId: string, since: readonly number[]): Promise<EndpointAttemptStats> {
    return withSqliteErrors('count the endpoint\'s attempts', () => {
      const starts = since.map((start) => Math.ceil(start));
      const parameters = { endpoint: endpointId, earliest: Math.min(...starts), ...Object.fromEntries(starts.map((start, index) => [`w${index}`, start])) };
      const row = this.#db.prepare(endpointStatsSql(starts.length)).raw(true).get(parameters) as (bigint | null)[];
      const windows = starts.map((_, index) => ({ succeeded: Number(row[2 * index] ?? 0), failed: Number(row[2 * index + 1] ?? 0) }));
      const [at, statusCode] = row.slice(2 * starts.length);
      if (at === null || at === undefined) return { windows };
      return { windows, lastAttempt: statusCode === null || statusCode === undefined ? { at: Number(at) } : { at: Number(at), statusCode: Number(statusCode) } };
    });
  }

  async requeueFailedSince(endpointId: string, since: number, now: number): Promise<number> {
    return withSqliteWrite(this.#file, 'recover the endpoint\'s deliveries', () =>
      this.#db.prepare(REQUEUE_FAILED_SINCE).run(wholeMs(now), wholeMs(now), endpointId, Math.ceil(since)).changes,
    );
  }

  async prune(options: PruneDeliveriesOptions): Promise<number> {
    return withSqliteWrite(this.#file, 'prune finished deliveries', () => {
      if (options.limit < 1) return 0;
      const pruned = this.#prune(Math.ceil(options.olderThan), Math.trunc(options.limit));
      // Outside the delete's transaction, so the delete commits first: hands
      // the pages it freed back to the file system (incremental auto-vacuum),
      // so the file shrinks back instead of keeping its largest size.
      // exec, not a prepared statement: run() takes a single step of this pragma, which frees a single page.
      if (pruned > 0) this.#db.exec(`PRAGMA incremental_vacuum(${VACUUM_PAGES_PER_PRUNE})`);
      return pruned;
    });
  }

  /** The rows as deliveries, with the attempts of all of them read in one query. */
  #withAttempts(rows: Selectable<WebhookDeliveriesTable>[]): Delivery[] {
    if (rows.length === 0) return [];
    const attempts = this.#db
      .prepare('SELECT * FROM webhook_attempts WHERE delivery_id IN (SELECT value FROM json_each(?)) ORDER BY delivery_id, attempt')
      .all(JSON.stringify(rows.map((row) => row.id))) as Selectable<WebhookAttemptsTable>[];
    const byDelivery = new Map<string, DeliveryAttempt[]>();
    for (const attempt of attempts) {
      let list = byDelivery.get(attempt.delivery_id);
      if (!list) byDelivery.set(attempt.delivery_id, (list = []));
      list.push(toAttempt(attempt));
    }
    return rows.map((row) => toDelivery(row, byDelivery.get(row.id) ?? []));
  }

  async requeue(id: string, now: number): Promise<boolean> {
    const { kysely } = await queryBuilder('requeue the delivery');
    return withSqliteWrite(this.#file, 'requeue the delivery', () => {
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

/** The statements of `recordAttempt`, as one IMMEDIATE transaction: the outcome under the lease, then the attempt row. */
function prepareRecordAttempt(db: BetterSqlite3): RecordAttempt {
  const applyOutcome = db.prepare(
    `UPDATE webhook_deliveries
     SET status = ?, attempt_count = attempt_count + 1, next_attempt_at = ?,
         lease_owner = NULL, lease_expires_at = NULL, updated_at = ?
     WHERE id = ? AND lease_owner = ? AND status = 'pending'`,
  );
  // Interrupted: the lease ends, and status, due time and counted attempts stay as they are.
  const applyInterrupted = db.prepare(
    `UPDATE webhook_deliveries SET lease_owner = NULL, lease_expires_at = NULL, updated_at = ?
     WHERE id = ? AND lease_owner = ? AND status = 'pending'`,
  );
  const insertAttempt = db.prepare(
    `INSERT INTO webhook_attempts (delivery_id, attempt, at, duration_ms, status_code, error, interrupted, response)
     VALUES (?, (SELECT coalesce(max(attempt), 0) + 1 FROM webhook_attempts WHERE delivery_id = ?), ?, ?, ?, ?, ?, ?)`,
  );
  const record = db.transaction((id: string, owner: string, attempt: DeliveryAttempt, outcome: AttemptOutcome) => {
    const at = wholeMs(attempt.at);
    const durationMs = wholeMs(attempt.durationMs);
    const interrupted = outcome.status === 'interrupted';
    const changes = interrupted
      ? applyInterrupted.run(at + durationMs, id, owner).changes
      : applyOutcome.run(outcome.status, outcome.status === 'pending' ? wholeMs(outcome.nextAttemptAt) : null, at + durationMs, id, owner).changes;
    if (changes === 0) return false;
    insertAttempt.run(id, id, at, durationMs, attempt.statusCode ?? null, attempt.error ?? null, interrupted ? 1 : 0, attempt.response ?? null);
    return true;
  });
  return record.immediate;
}

/** The statements of `prune`, as one IMMEDIATE transaction: pick the batch, delete it (the foreign key deletes the attempts with it). */
function preparePrune(db: BetterSqlite3): (olderThan: number, limit: number) => number {
  const select = db.prepare(PRUNABLE).pluck(true);
  // One JSON parameter for the whole batch (no bound-variable limit).
  const deleteDeliveries = db.prepare('DELETE FROM webhook_deliveries WHERE id IN (SELECT value FROM json_each(?))');
  const prune = db.transaction((olderThan: number, limit: number) => {
    const ids = select.all(olderThan, limit) as string[];
    if (ids.length === 0) return 0;
    return deleteDeliveries.run(JSON.stringify(ids)).changes;
  });
  return prune.immediate;
}

/** The query builder, its loading failure (a broken install) reported as a `StorageError` of the action. */
async function queryBuilder(action: string): Promise<QueryBuilder> {
  try {
    return await loadQueryBuilder();
  } catch (error) {
    throw sqliteError(action, error);
  }
}

