import type { Delivery, DeliveryAttempt, PendingStats } from '@plant-store/core';
import {
  ENDPOINT_DELETED_ERROR,
  ENDPOINT_DISABLED_ERROR,
  type AttemptOutcome,
  type ClaimDueOptions,
  type ClaimedDelivery,
  type EndpointAttemptStats,
  type ListDeliveriesQuery,
  type NewDelivery,
  type PruneDeliveriesOptions,
  type RateBudgetAnswer,
  type ReclaimSpaceOptions,
  type RequeueSelector,
  type StuckLine,
  type StuckLineKey,
  type WebhookOutbox,
} from '@plant-store/core/adapter';
import { claimOrder, toClaimedDelivery, toDelivery, type ClaimRow, type DeliveryRow } from './delivery-rows.js';
import { PostgresLineCheck } from './line-check.js';
import type { NotificationListener } from './notification-listener.js';
import type { Vacuum } from './vacuum.js';
import * as sql from './outbox-queries.js';
import { CoalescingBatch } from './coalescing-batch.js';
import { prepared, type PreparedStatement, type QueryRunner } from './query-runner.js';
import type { Tables } from './tables.js';

/** Rate budgets are counted in one-second windows aligned to whole seconds, so every instance agrees on them. */
const RATE_WINDOW_MS = 1_000;
const RECORD_BATCH = 256;

/** One attempt as a row of the record statement's parameter arrays, in their order (see recordAttemptsSql). */
type AttemptRecord = readonly [id: string, ...columns: unknown[]];

/** The webhook outbox in PostgreSQL, shared by every instance on the database (leases, NOTIFY, rate budgets in rows). */
export class PostgresWebhookOutbox implements WebhookOutbox {
  readonly #runner: QueryRunner;
  /** Claims, records and releases: the dispatcher's hot path, on connections that commit asynchronously. */
  readonly #dispatch: QueryRunner;
  readonly #listener: NotificationListener;
  readonly #tables: Tables;
  readonly #claim: PreparedStatement;
  readonly #claimPassingOver: PreparedStatement;
  readonly #record: PreparedStatement;
  readonly #takeRateBudget: PreparedStatement;
  /** Attempts finished at about the same time (on any delivery) are recorded in one statement. */
  readonly #records: CoalescingBatch<AttemptRecord, boolean>;
  /** The line of each delivery in a line this outbox has claimed and not yet recorded or released: their end releases the next. */
  readonly #claimedInLine = new Map<string, { readonly endpointId: string; readonly orderingKey: string }>();
  readonly #releaseNextInLine: PreparedStatement;
  readonly #pruneLockKey: string;
  readonly #vacuum: Vacuum;
  readonly #lineCheck: PostgresLineCheck;

  constructor(
    runners: { readonly runner: QueryRunner; readonly dispatch: QueryRunner; readonly vacuum: Vacuum },
    tables: Tables,
    listener: NotificationListener,
  ) {
    this.#runner = runners.runner;
    this.#dispatch = runners.dispatch;
    this.#vacuum = runners.vacuum;
    this.#listener = listener;
    this.#claim = prepared(sql.claimDueSql(tables));
    this.#claimPassingOver = prepared(sql.claimDuePassingOverSql(tables));
    this.#record = prepared(sql.recordAttemptsSql(tables));
    this.#takeRateBudget = prepared(sql.takeRateBudgetSql(tables));
    this.#releaseNextInLine = prepared(sql.releaseNextInLineSql(tables));
    this.#records = new CoalescingBatch({ run: (records) => this.#recordBatch(records), keyOf: ([id]) => id, maxSize: RECORD_BATCH });
    this.#tables = tables;
    this.#pruneLockKey = sql.pruneLockKey(tables);
    this.#lineCheck = new PostgresLineCheck(runners.runner, tables);
  }

  async claimDue(options: ClaimDueOptions): Promise<ClaimedDelivery[]> {
    if (options.limit < 1) return [];
    const now = Math.round(options.now);
    const leaseExpiresAt = Math.round(options.now + options.leaseMs);
    const skip = options.skipEndpoints ?? [];
    const parameters = [options.owner, leaseExpiresAt, now, options.limit];
    const rows =
      skip.length === 0
        ? await this.#dispatch.rows<ClaimRow>('claim due deliveries', this.#claim, parameters)
        : await this.#dispatch.rows<ClaimRow>('claim due deliveries', this.#claimPassingOver, [...parameters, skip]);
    for (const { id, endpoint_id: endpointId, ordering_key: orderingKey } of rows) {
      if (orderingKey !== null) this.#claimedInLine.set(id, { endpointId, orderingKey });
    }
    return rows.sort(claimOrder).map((row) => toClaimedDelivery(row, leaseExpiresAt));
  }

  recordAttempt(id: string, owner: string, attempt: DeliveryAttempt, outcome: AttemptOutcome): Promise<boolean> {
    const at = Math.round(attempt.at);
    const durationMs = Math.round(attempt.durationMs);
    const interrupted = outcome.status === 'interrupted';
    const nextAttemptAt = outcome.status === 'pending' ? Math.round(outcome.nextAttemptAt) : null;
    const { statusCode = null, error = null, response = null } = attempt;
    const status = interrupted ? 'pending' : outcome.status;
    const record: AttemptRecord = [id, owner, status, nextAttemptAt, at + durationMs, at, durationMs, statusCode, error, interrupted, response];
    const line = this.#claimedInLine.get(id);
    this.#claimedInLine.delete(id);
    if (!line || status === 'pending') return this.#records.submit(record);
    // Its end releases the next of its line, in the same transaction (see releaseNextInLineSql).
    return this.#dispatch.transaction('record the delivery attempt', async (rows) => {
      const recorded = await rows(
        this.#record,
        record.map((column) => [column]),
      );
      if (recorded.length > 0) await rows(this.#releaseNextInLine, [line.endpointId, line.orderingKey, at + durationMs]);
      return recorded.length > 0;
    });
  }

  async #recordBatch(records: readonly AttemptRecord[]): Promise<boolean[]> {
    const parameters = records[0]!.map((_, column) => records.map((record) => record[column]));
    const rows = await this.#dispatch.rows<{ delivery_id: string }>('record the delivery attempt', this.#record, parameters);
    const recorded = new Set(rows.map((row) => row.delivery_id));
    return records.map(([id]) => recorded.has(id));
  }

  async release(ids: readonly string[], owner: string): Promise<void> {
    for (const id of ids) this.#claimedInLine.delete(id);
    await this.#dispatch.changes('release delivery leases', sql.releaseSql(this.#tables), [ids, owner]);
  }

  async pendingStats(): Promise<PendingStats> {
    const [row] = await this.#runner.rows<{ count: bigint; oldest: bigint | null }>('count pending deliveries', sql.pendingStatsSql(this.#tables), []);
    const count = Number(row?.count ?? 0n);
    return row?.oldest == null ? { count } : { count, oldestCreatedAt: Number(row.oldest) };
  }

  async waitingSince(now: number): Promise<ReadonlyMap<string, number>> {
    const waiting = sql.waitingSinceSql(this.#tables);
    const rows = await this.#runner.rows<{ id: string; since: bigint }>('find the deliveries waiting for a slot', waiting, [Math.round(now)]);
    return new Map(rows.map((row) => [row.id, Number(row.since)]));
  }

  async nextDueAt(): Promise<number | undefined> {
    const [row] = await this.#runner.rows<{ at: bigint | null }>('find the next due delivery', sql.nextDueAtSql(this.#tables), []);
    return row?.at == null ? undefined : Number(row.at);
  }

  async get(id: string): Promise<Delivery | undefined> {
    const [row] = await this.#runner.rows<DeliveryRow>('read the delivery', sql.getDeliverySql(this.#tables), [id]);
    return row && toDelivery(row);
  }

  async list(query: ListDeliveriesQuery = {}): Promise<Delivery[] | undefined> {
    let cursor: { created_at: bigint; seq: bigint } | undefined;
    if (query.after !== undefined) {
      [cursor] = await this.#runner.rows<typeof cursor>('list deliveries', sql.listCursorSql(this.#tables), [query.after, query.tenant ?? null]);
      if (!cursor) return undefined;
    }
    const { tenant = null, endpointId = null, status = null, eventType = null, since, until } = query;
    const range = [since === undefined ? null : Math.ceil(since), until === undefined ? null : Math.ceil(until)];
    const parameters = [tenant, endpointId, status, cursor?.created_at ?? null, cursor?.seq ?? null, Math.max(0, query.limit ?? 100), eventType, ...range];
    return (await this.#runner.rows<DeliveryRow>('list deliveries', sql.listDeliveriesSql(this.#tables), parameters)).map(toDelivery);
  }

  async requeue(selector: RequeueSelector, now: number): Promise<number> {
    const at = Math.round(now);
    const requeueEnded = sql.requeueEndedSql(this.#tables);
    if (!('id' in selector)) {
      const { endpointId } = selector;
      const since = Math.ceil(selector.since);
      // Those in a line one by one, in creation order, so each joins its line behind the one queued before it.
      return this.#runner.transaction("recover the endpoint's deliveries", async (rows) => {
        let count = (await rows(sql.requeueFailedSinceSql(this.#tables), [endpointId, at, since])).length;
        for (const { id } of await rows<{ id: string }>(sql.failedInLineSinceSql(this.#tables), [endpointId, since])) {
          count += (await rows(requeueEnded, [id, at, false])).length;
        }
        return count;
      });
    }
    if (selector.from === 'failed') return (await this.#runner.rows('requeue the delivery', requeueEnded, [selector.id, at, false])).length;
    const resent = await this.#runner.changes('resend the delivery', sql.resendPendingSql(this.#tables), [selector.id, at]);
    return resent || (await this.#runner.rows('resend the delivery', requeueEnded, [selector.id, at, true])).length;
  }

  async enqueue({ id, tenant, endpointId, eventType, payload, createdAt, orderingKey, test }: NewDelivery): Promise<void> {
    const parameters = [id, tenant, endpointId, eventType, payload, Math.round(createdAt), test === true, orderingKey ?? null];
    await this.#runner.changes('queue the delivery', sql.enqueueSql(this.#tables), parameters);
  }

  async endpointAttemptStats(endpointId: string, since: readonly number[]): Promise<EndpointAttemptStats> {
    const starts = since.map((start) => Math.ceil(start));
    const parameters = [endpointId, Math.min(...starts), starts, [ENDPOINT_DELETED_ERROR, ENDPOINT_DISABLED_ERROR]];
    type Row = { windows: [number, number][] | null; last_at: bigint | null; last_status: number | null };
    const [row] = await this.#runner.rows<Row>("count the endpoint's attempts", sql.endpointStatsSql(this.#tables), parameters);
    const windows = (row?.windows ?? []).map(([succeeded, failed]) => ({ succeeded, failed }));
    if (!row || row.last_at === null) return { windows };
    const at = Number(row.last_at);
    return { windows, lastAttempt: row.last_status === null ? { at } : { at, statusCode: row.last_status } };
  }

  stuckLines(limit: number): Promise<StuckLine[]> {
    return this.#lineCheck.stuckLines(limit);
  }

  releaseStuckLine(line: StuckLineKey, now: number): Promise<number> {
    return this.#lineCheck.releaseStuckLine(line, now);
  }

  async prune(options: PruneDeliveriesOptions): Promise<number> {
    if (options.limit < 1) return 0;
    const parameters = [Math.ceil(options.olderThan), Math.trunc(options.limit), this.#pruneLockKey];
    return this.#runner.changes('prune finished deliveries', sql.pruneSql(this.#tables), parameters);
  }

  reclaimSpace(options?: ReclaimSpaceOptions): Promise<void> {
    return this.#vacuum.run(options);
  }

  async takeRateBudget(endpointId: string, rateLimit: number, now: number): Promise<RateBudgetAnswer> {
    // On the dispatcher's asynchronously committing connections: a count lost in a crash lets one window go over.
    const windowStart = Math.floor(now / RATE_WINDOW_MS) * RATE_WINDOW_MS;
    const parameters = [endpointId, windowStart, rateLimit];
    const [row] = await this.#dispatch.rows<{ used: number; window_start: bigint }>('take from the rate budget', this.#takeRateBudget, parameters);
    if (!row) return { admitted: false, windowEnd: windowStart + RATE_WINDOW_MS, exhausted: true };
    return { admitted: true, windowEnd: Number(row.window_start) + RATE_WINDOW_MS, exhausted: row.used >= rateLimit };
  }

  watch(listener: () => void): () => void {
    return this.#listener.subscribe(listener);
  }
}
