import pg from 'pg';
import { StorageError, type Delivery, type DeliveryAttempt, type PendingStats } from '@plant-store/core';
import {
  ENDPOINT_DELETED_ERROR,
  ENDPOINT_DISABLED_ERROR,
  PARKED_DISCARDED_ERROR,
  type AttemptOutcome,
  type ClaimDueOptions,
  type ClaimedDelivery,
  type EndpointAttemptStats,
  type ListDeliveriesQuery,
  type NewDelivery,
  type ParkedChoice,
  type PruneDeliveriesOptions,
  type RateBudgetAnswer,
  type ReclaimSpaceOptions,
  type RequeueSelector,
  type StuckLine,
  type StuckLineKey,
  type WebhookOutbox,
  storableText,
} from '@plant-store/core/adapter';
import { claimOrder, toClaimedDelivery, toDelivery, type ClaimRow, type DeliveryRow } from './delivery-rows.js';
import { PostgresLineCheck } from './line-check.js';
import type { Vacuum } from './vacuum.js';
import * as lines from './delivery-lines.js';
import * as sql from './outbox-queries.js';
import * as parked from './parked-deliveries.js';
import { CoalescingBatch } from './coalescing-batch.js';
import { prepared, type PreparedStatement, type QueryRunner, type TransactionRows } from './query-runner.js';
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
  readonly #watch: (listener: () => void) => () => void;
  readonly #tables: Tables;
  readonly #claim: PreparedStatement;
  readonly #claimPassingOver: PreparedStatement;
  readonly #record: PreparedStatement;
  readonly #takeRateBudget: PreparedStatement;
  /** Attempts finished at about the same time (on any delivery) are recorded in one statement. */
  readonly #records: CoalescingBatch<AttemptRecord, boolean>;
  readonly #releaseNext: PreparedStatement;
  /** One delivery back into its line (see rejoinSql), by status: run once per message of a recovery or replay, so planned once per connection. */
  readonly #rejoinOne: Readonly<Record<sql.Rejoining, PreparedStatement>>;
  readonly #pruneLockKey: string;
  readonly #vacuum: Vacuum;
  readonly #lineCheck: PostgresLineCheck;
  readonly #bound: parked.ParkedBound;

  constructor(
    runners: { readonly runner: QueryRunner; readonly dispatch: QueryRunner; readonly vacuum: Vacuum },
    tables: Tables,
    /** The bound of parked messages, applied after a disable parks them. */
    bound: parked.ParkedBound,
    /** Subscribes to notices of deliveries queued elsewhere (see `watch`). */
    watch: (listener: () => void) => () => void,
  ) {
    this.#runner = runners.runner;
    this.#dispatch = runners.dispatch;
    this.#vacuum = runners.vacuum;
    this.#watch = watch;
    this.#claim = prepared(sql.claimDueSql(tables));
    this.#claimPassingOver = prepared(sql.claimDuePassingOverSql(tables));
    this.#record = prepared(sql.recordAttemptsSql(tables));
    this.#takeRateBudget = prepared(sql.takeRateBudgetSql(tables));
    this.#releaseNext = prepared(lines.releaseNextSql(tables));
    this.#rejoinOne = { failed: prepared(sql.rejoinSql(tables, 'failed')), parked: prepared(sql.rejoinSql(tables, 'parked')) };
    this.#records = new CoalescingBatch({
      run: (records) => this.#recordBatch(records),
      keyOf: ([id]) => id,
      maxSize: RECORD_BATCH,
      // The database refused the statement (a value it cannot store, say): each record again alone, so only that one fails.
      // Any other failure (the database away) would fail each alone too, one deadline after another.
      isolate: (error) => error instanceof StorageError && error.cause instanceof pg.DatabaseError,
    });
    this.#tables = tables;
    this.#bound = bound;
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
    return rows.sort(claimOrder).map((row) => toClaimedDelivery(row, leaseExpiresAt));
  }

  recordAttempt(id: string, owner: string, attempt: DeliveryAttempt, outcome: AttemptOutcome): Promise<boolean> {
    const at = Math.round(attempt.at);
    const durationMs = Math.round(attempt.durationMs);
    const interrupted = outcome.status === 'interrupted';
    const nextAttemptAt = outcome.status === 'pending' ? Math.round(outcome.nextAttemptAt) : null;
    const statusCode = attempt.statusCode ?? null;
    const error = attempt.error === undefined ? null : storableText(attempt.error);
    const response = attempt.response === undefined ? null : storableText(attempt.response);
    const status = interrupted ? 'pending' : outcome.status;
    return this.#records.submit([id, owner, status, nextAttemptAt, at + durationMs, at, durationMs, statusCode, error, interrupted, response]);
  }

  /** One transaction: the attempts, then the release of the next message of each line one of them ended (see releaseNextSql). */
  async #recordBatch(records: readonly AttemptRecord[]): Promise<boolean[]> {
    const parameters = records[0]!.map((_, column) => records.map((record) => record[column]));
    type Recorded = { id: string; endpoint_id: string; ordering_key: string | null; ended: boolean; updated_at: bigint };
    const recorded = await this.#dispatch.transaction('record the delivery attempts', async (rows) => {
      const applied = await rows<Recorded>(this.#record, parameters);
      const ended = applied.filter((row) => row.ended && row.ordering_key !== null);
      if (ended.length > 0) {
        await rows(this.#releaseNext, [ended.map((row) => row.endpoint_id), ended.map((row) => row.ordering_key), ended.map((row) => row.updated_at)]);
      }
      return new Set(applied.map((row) => row.id));
    });
    return records.map(([id]) => recorded.has(id));
  }

  async release(ids: readonly string[], owner: string): Promise<void> {
    await this.#dispatch.changes('release delivery leases', sql.releaseSql(this.#tables), [ids, owner]);
  }

  /**
   * Ends every pending message of the endpoint (its lines and the rest) but those in flight, and every parked one, as failed, with a last
   * attempt saying `error`: a delete of it, inside that write's transaction (`rows`), after the endpoint's row is deleted there (see
   * shareEndpointSql).
   */
  async endLines(rows: TransactionRows, endpointId: string, at: number, error: string): Promise<void> {
    await rows(lines.endEndpointSql(this.#tables), [endpointId, Math.round(at), error]);
  }

  /**
   * Parks every pending message of the endpoint but those in flight, starts its count of dropped ones again and applies the bound: a
   * disable of it, inside that write's transaction (`rows`), after the endpoint's row is locked FOR UPDATE there (see lockEndpointStatusSql).
   */
  async parkLines(rows: TransactionRows, endpointId: string, at: number): Promise<void> {
    await rows(parked.parkEndpointSql(this.#tables), [endpointId, Math.round(at)]);
    await rows(this.#bound.statement, this.#bound.parameters([endpointId]));
  }

  /**
   * Replays or discards the endpoint's parked messages (see ParkedChoice), due at `at`: an enable of it, inside that write's
   * transaction (`rows`), after the endpoint's row is locked FOR UPDATE there, so no plant write parks one after this reads them
   * (a write waits, then finds it enabled). Resolves with how many were replayed.
   */
  async unpark(rows: TransactionRows, endpointId: string, at: number, choice: ParkedChoice): Promise<number> {
    const now = Math.round(at);
    // Those created before `replayFrom` are discarded, the others replayed.
    const replayFrom = choice.action === 'discard' ? Number.MAX_SAFE_INTEGER : Math.ceil(choice.since ?? Number.MIN_SAFE_INTEGER);
    if (replayFrom > Number.MIN_SAFE_INTEGER) await rows(parked.discardParkedSql(this.#tables), [endpointId, now, PARKED_DISCARDED_ERROR, replayFrom]);
    return choice.action === 'discard' ? 0 : this.#rejoin(rows, 'parked', endpointId, now, replayFrom);
  }

  /**
   * The endpoint's deliveries of that status created at or after `since` back to pending, due at `now`: those in no line at once, then
   * those in a line one by one, in creation order, so each joins the back of its line behind the one before it. Resolves with how many.
   */
  async #rejoin(rows: TransactionRows, status: sql.Rejoining, endpointId: string, now: number, since: number): Promise<number> {
    let count = (await rows(sql.rejoinUnlinedSinceSql(this.#tables, status), [endpointId, now, since])).length;
    const rejoin = this.#rejoinOne[status];
    for (const { id } of await rows<{ id: string }>(sql.inLineSinceSql(this.#tables, status), [endpointId, since])) {
      count += (await rows(rejoin, [id, now, false])).length;
    }
    return count;
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
    const share = lines.shareEndpointSql(this.#tables);
    if (!('id' in selector)) {
      const { endpointId } = selector;
      const since = Math.ceil(selector.since);
      return this.#runner.transaction("recover the endpoint's deliveries", async (rows) => {
        await rows(share, [endpointId]);
        return this.#rejoin(rows, 'failed', endpointId, at, since);
      });
    }
    const { id, from } = selector;
    if (from === 'any') {
      const resent = await this.#runner.changes('resend the delivery', sql.resendPendingSql(this.#tables), [id, at]);
      if (resent > 0) return resent;
    }
    return this.#runner.transaction(from === 'any' ? 'resend the delivery' : 'requeue the delivery', async (rows) => {
      const [target] = await rows<{ endpoint_id: string }>(sql.deliveryEndpointSql(this.#tables), [id]);
      if (!target) return 0;
      await rows(share, [target.endpoint_id]);
      return (await rows(this.#rejoinOne.failed, [id, at, from === 'any'])).length;
    });
  }

  async enqueue({ id, tenant, endpointId, eventType, payload, createdAt, orderingKey, test }: NewDelivery): Promise<void> {
    const parameters = [id, tenant, endpointId, eventType, payload, Math.round(createdAt), test === true, orderingKey ?? null];
    if (orderingKey === undefined) {
      await this.#runner.changes('queue the delivery', sql.enqueueSql(this.#tables), parameters);
      return;
    }
    // Joins a line: the endpoint's share lock first, so a disable either sees it or is seen (see shareEndpointSql).
    await this.#runner.transaction('queue the delivery', async (rows) => {
      await rows(lines.shareEndpointSql(this.#tables), [endpointId]);
      await rows(sql.enqueueSql(this.#tables), parameters);
    });
  }

  async endpointAttemptStats(endpointId: string, since: readonly number[]): Promise<EndpointAttemptStats> {
    const starts = since.map((start) => Math.ceil(start));
    const parameters = [endpointId, Math.min(...starts), starts, [ENDPOINT_DELETED_ERROR, ENDPOINT_DISABLED_ERROR, PARKED_DISCARDED_ERROR]];
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
    return this.#watch(listener);
  }
}
