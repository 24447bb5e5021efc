import type { Database as BetterSqlite3 } from 'better-sqlite3';
import type { Delivery, DeliveryAttempt, PendingStats } from '@plant-store/core';
import {
  DEFAULT_PARKED_LIMIT,
  PARKED_DISCARDED_ERROR,
  storableText,
  type AttemptOutcome,
  type ClaimDueOptions,
  type ClaimedDelivery,
  type EndpointAttemptStats,
  type ListDeliveriesQuery,
  type NewDelivery,
  type ParkedChoice,
  type PruneDeliveriesOptions,
  type ReclaimSpaceOptions,
  type RequeueSelector,
  type StuckLine,
  type StuckLineKey,
  type WebhookOutbox,
} from '@plant-store/core/adapter';
import {
  claimOrder,
  isHeld,
  toClaimedDelivery,
  toDeliveries,
  type AttemptRow,
  type ClaimRow,
  type CursorRow,
  type DeliveryRow,
  type DueRow,
  type WaitingRow,
} from './delivery-rows.js';
import * as lines from './delivery-lines.js';
import { SqliteLineCheck } from './line-check.js';
import * as sql from './outbox-queries.js';
import * as parked from './parked-deliveries.js';
import { preparedStatements, type PreparedStatements } from './prepared-statements.js';
import { withSqliteErrors, withSqliteWrite, type GuardedWrites } from './sqlite-error.js';

/** The webhook outbox in SQLite. Writes run in one IMMEDIATE transaction each: no other connection writes between their statements. */
export class SqliteWebhookOutbox implements WebhookOutbox {
  readonly #db: BetterSqlite3;
  readonly #file: GuardedWrites;
  readonly #prepared: PreparedStatements;
  /** Runs reads in one transaction, so a delivery and its attempts come from one snapshot even with other processes writing. */
  readonly #snapshot: <T>(read: () => T) => T;
  readonly #lineCheck: SqliteLineCheck;
  /** Parked messages kept per endpoint (the storage's `parkedLimit`). */
  readonly #parkedLimit: number;

  constructor(db: BetterSqlite3, file: GuardedWrites, parkedLimit = DEFAULT_PARKED_LIMIT) {
    this.#db = db;
    this.#file = file;
    this.#parkedLimit = parkedLimit;
    this.#prepared = preparedStatements(db);
    this.#lineCheck = new SqliteLineCheck(this.#prepared, file);
    // Built once: db.transaction makes a new wrapper on every call.
    const inOneTransaction = db.transaction((read: () => unknown) => read());
    this.#snapshot = <T>(read: () => T) => inOneTransaction(read) as T;
  }

  /** Queues deliveries, each due at its `createdAt` (or held in its line). Runs inside the caller's transaction (the plant's create). */
  queue(deliveries: readonly NewDelivery[]): void {
    for (const delivery of deliveries) this.#insert(delivery, delivery.traceparent ?? null);
  }

  async enqueue(delivery: NewDelivery): Promise<void> {
    withSqliteWrite(this.#file, 'queue the delivery', () => this.#insert(delivery, null));
  }

  #insert(delivery: NewDelivery, traceparent: string | null): void {
    const [text, parameters] = deliveryInsert(delivery, traceparent);
    this.#prepared(text).run(...parameters);
  }

  async claimDue({ owner, limit, skipEndpoints = [], ...options }: ClaimDueOptions): Promise<ClaimedDelivery[]> {
    return withSqliteWrite(this.#file, 'claim due deliveries', () => {
      if (limit < 1) return [];
      const now = Math.round(options.now);
      const leaseExpiresAt = Math.round(options.now + options.leaseMs);
      const rows =
        skipEndpoints.length === 0
          ? this.#prepared<ClaimRow>(sql.CLAIM_DUE).all(owner, leaseExpiresAt, now, now, now, limit)
          : this.#claimPassingOver(new Set(skipEndpoints), owner, leaseExpiresAt, now, limit);
      return rows.sort(claimOrder).map((row) => toClaimedDelivery(row, leaseExpiresAt));
    });
  }

  /** Endpoint by endpoint (see PENDING_ENDPOINTS). */
  #claimPassingOver(passed: ReadonlySet<string>, owner: string, leaseExpiresAt: number, now: number, limit: number): ClaimRow[] {
    const due: DueRow[] = [];
    for (const endpointId of this.#prepared<string>(sql.PENDING_ENDPOINTS).pluck(true).all()) {
      if (!passed.has(endpointId)) due.push(...this.#prepared<DueRow>(sql.DUE_FOR_ENDPOINT).all(endpointId, now, now, limit));
    }
    if (due.length === 0) return [];
    const ids = JSON.stringify(
      due
        .sort(claimOrder)
        .slice(0, limit)
        .map((row) => row.id),
    );
    return this.#prepared<ClaimRow>(sql.LEASE_DELIVERIES).all(owner, leaseExpiresAt, now, ids);
  }

  async recordAttempt(id: string, owner: string, attempt: DeliveryAttempt, outcome: AttemptOutcome): Promise<boolean> {
    const at = Math.round(attempt.at);
    const durationMs = Math.round(attempt.durationMs);
    const interrupted = outcome.status === 'interrupted';
    const dueAt = outcome.status === 'pending' ? Math.round(outcome.nextAttemptAt) : null;
    return withSqliteWrite(this.#file, 'record the delivery attempt', () => {
      const finishedAt = at + durationMs;
      let parkedFor: string | undefined;
      if (interrupted) {
        if (this.#prepared(sql.APPLY_INTERRUPTED).run(finishedAt, id, owner).changes === 0) return false;
      } else {
        type Line = { endpoint_id: string; ordering_key: string | null };
        const line =
          outcome.status === 'parked'
            ? this.#prepared<Line>(sql.APPLY_PARKED).get(finishedAt, id, owner)
            : this.#prepared<Line>(sql.APPLY_OUTCOME).get(outcome.status, dueAt, finishedAt, id, owner);
        if (!line) return false;
        if (line.ordering_key !== null && outcome.status !== 'pending') {
          this.#prepared(lines.RELEASE_NEXT_IN_LINE).run({ at: finishedAt, endpoint: line.endpoint_id, key: line.ordering_key });
        }
        if (outcome.status === 'parked') parkedFor = line.endpoint_id;
      }
      const { statusCode = null, error, response } = attempt;
      const text = (value: string | undefined) => (value === undefined ? null : storableText(value));
      this.#prepared(sql.INSERT_ATTEMPT).run(id, id, at, durationMs, statusCode, text(error), interrupted ? 1 : 0, text(response));
      // One more parked message of its endpoint: the bound holds for it too.
      if (parkedFor !== undefined) this.boundParked([parkedFor]);
      return true;
    });
  }

  /** Ends every pending delivery to the endpoint (its lines and the rest) but those in flight, and every parked one, as failed, with a last attempt saying why. Inside the caller's transaction (its delete). */
  endLines(endpointId: string, at: number, error: string): void {
    const ended = { at: Math.round(at), endpoint: endpointId };
    this.#prepared(lines.END_ENDPOINT_ATTEMPTS).run({ ...ended, error });
    this.#prepared(lines.END_ENDPOINT_DELIVERIES).run(ended);
    this.#endParked(endpointId, ended.at, error, Number.MAX_SAFE_INTEGER);
  }

  /**
   * Parks every pending delivery to the endpoint (its lines and the rest) but those in flight, then applies the bound; `newPeriod`
   * (it was enabled until now) starts the count of dropped ones again first. Inside the caller's transaction (its disable). Answers
   * how many the bound dropped.
   */
  parkLines(endpointId: string, at: number, newPeriod: boolean): number {
    if (newPeriod) this.#prepared(parked.RESET_PARKED_DROPPED).run(endpointId);
    this.#prepared(lines.PARK_ENDPOINT_DELIVERIES).run({ at: Math.round(at), endpoint: endpointId });
    return this.boundParked([endpointId]);
  }

  /**
   * What enabling the endpoint does with its parked deliveries: a replay makes those created at or after `since` pending, due at
   * `at`, in creation order, each joining the back of its line; the others, and all of them on a discard, end failed, saying so.
   * Inside the caller's transaction (its enable).
   */
  unpark(endpointId: string, choice: ParkedChoice, at: number): void {
    const now = Math.round(at);
    const replayFrom = choice.action === 'discard' ? Number.MAX_SAFE_INTEGER : Math.ceil(choice.since ?? Number.MIN_SAFE_INTEGER);
    this.#endParked(endpointId, now, PARKED_DISCARDED_ERROR, replayFrom);
    if (choice.action === 'discard') return;
    const replay = this.#prepared(parked.REPLAY_PARKED);
    for (const id of this.#prepared<string>(parked.PARKED_OF).pluck(true).all(endpointId)) replay.run({ id, now });
  }

  /** The bound on the parked messages of each endpoint (see DROP_PARKED_BEYOND_LIMIT); how many it dropped. Inside the caller's transaction. */
  boundParked(endpointIds: readonly string[]): number {
    return parked.boundParked((statement, parameters) => this.#prepared(statement).run(...parameters).changes, endpointIds, this.#parkedLimit);
  }

  /** The endpoint's parked deliveries created before `before` end failed with a last attempt saying why. */
  #endParked(endpointId: string, at: number, error: string, before: number): void {
    const ended = { at, endpoint: endpointId, before };
    this.#prepared(parked.END_PARKED_ATTEMPTS).run({ ...ended, error });
    this.#prepared(parked.END_PARKED).run(ended);
  }

  async nextDueAt(): Promise<number | undefined> {
    return withSqliteErrors('find the next due delivery', () => {
      const at = this.#prepared<bigint | null>(sql.NEXT_DUE_AT).pluck(true).get();
      return at == null ? undefined : Number(at);
    });
  }

  async waitingSince(now: number): Promise<ReadonlyMap<string, number>> {
    return withSqliteErrors('find the deliveries waiting for a slot', () => {
      const rows = this.#prepared<{ id: string; since: bigint | null }>(sql.WAITING_SINCE).all({ now: Math.round(now) });
      return new Map(rows.flatMap(({ id, since }) => (since === null ? [] : [[id, Number(since)] as const])));
    });
  }

  async pendingStats(): Promise<PendingStats> {
    return withSqliteErrors('count pending deliveries', () => {
      const [count, oldest] = this.#prepared<[bigint, bigint | null]>(sql.PENDING_STATS).raw(true).get()!;
      return oldest === null ? { count: 0 } : { count: Number(count), oldestCreatedAt: Number(oldest) };
    });
  }

  async release(ids: readonly string[], owner: string): Promise<void> {
    withSqliteWrite(this.#file, 'release delivery leases', () => this.#prepared(sql.RELEASE_LEASES).run(JSON.stringify(ids), owner));
  }

  async get(id: string): Promise<Delivery | undefined> {
    return withSqliteErrors('read the delivery', () => this.#snapshot(() => this.#completed(this.#prepared<DeliveryRow>(sql.SELECT_DELIVERY).all(id))[0]));
  }

  async list(query: ListDeliveriesQuery = {}): Promise<Delivery[] | undefined> {
    return withSqliteErrors('list deliveries', () =>
      this.#snapshot(() => {
        const cursor =
          query.after === undefined ? undefined : this.#prepared<CursorRow>(sql.LIST_CURSOR).get({ id: query.after, tenant: query.tenant ?? null });
        if (query.after !== undefined && !cursor) return undefined;
        const listing = sql.listDeliveries(query, cursor);
        return this.#completed(this.#prepared<DeliveryRow>(listing.sql).all(...listing.parameters));
      }),
    );
  }

  async endpointAttemptStats(endpointId: string, since: readonly number[]): Promise<EndpointAttemptStats> {
    return withSqliteErrors("count the endpoint's attempts", () => {
      const starts = since.map((start) => Math.ceil(start));
      const parameters = { endpoint: endpointId, earliest: Math.min(...starts), ...Object.fromEntries(starts.map((start, index) => [`w${index}`, start])) };
      const row = this.#prepared<(bigint | null)[]>(sql.endpointStatsSql(starts.length)).raw(true).get(parameters)!;
      const windows = starts.map((_, index) => ({ succeeded: Number(row[2 * index] ?? 0), failed: Number(row[2 * index + 1] ?? 0) }));
      const [at, statusCode] = row.slice(2 * starts.length);
      if (at == null) return { windows };
      return { windows, lastAttempt: { at: Number(at), ...(statusCode != null && { statusCode: Number(statusCode) }) } };
    });
  }

  async requeue(selector: RequeueSelector, now: number): Promise<number> {
    const at = Math.round(now);
    const requeueEnded = (id: string, any: boolean) => this.#prepared(sql.REQUEUE_ENDED).run({ id, now: at, any: any ? 1 : 0 }).changes;
    if (!('id' in selector)) {
      return withSqliteWrite(this.#file, "recover the endpoint's deliveries", () => {
        const ids = this.#prepared<string>(sql.FAILED_SINCE).pluck(true).all(selector.endpointId, Math.ceil(selector.since));
        return ids.reduce((count, id) => count + requeueEnded(id, false), 0);
      });
    }
    const { id, from } = selector;
    if (from === 'failed') return withSqliteWrite(this.#file, 'requeue the delivery', () => requeueEnded(id, false));
    return withSqliteWrite(this.#file, 'resend the delivery', () => this.#prepared(sql.RESEND_PENDING).run({ id, now: at }).changes || requeueEnded(id, true));
  }

  async stuckLines(limit: number): Promise<StuckLine[]> {
    return this.#lineCheck.stuckLines(limit);
  }

  async releaseStuckLine(line: StuckLineKey, now: number): Promise<number> {
    return this.#lineCheck.releaseStuckLine(line, now);
  }

  async prune(options: PruneDeliveriesOptions): Promise<number> {
    return withSqliteWrite(this.#file, 'prune finished deliveries', () => {
      if (options.limit < 1) return 0;
      const ids = this.#prepared<string>(sql.PRUNABLE).pluck(true).all(Math.ceil(options.olderThan), Math.trunc(options.limit));
      return ids.length === 0 ? 0 : this.#prepared(sql.DELETE_DELIVERIES).run(JSON.stringify(ids)).changes;
    });
  }

  /**
   * Hands the pages pruning freed back to the file system (incremental auto-vacuum), in short steps with the event
   * loop handed back between them, so requests never wait for more than one step.
   */
  async reclaimSpace(options: ReclaimSpaceOptions = {}): Promise<void> {
    const freePages = () => this.#prepared<bigint>(sql.FREE_PAGES).pluck(true).get()!;
    let free = withSqliteErrors('count free pages', freePages);
    while (free > 0n && !options.signal?.aborted) {
      const before = free;
      free = withSqliteWrite(this.#file, 'reclaim free pages', () => {
        this.#db.exec(sql.RECLAIM_STEP);
        return freePages();
      });
      // A file without incremental auto-vacuum keeps its free pages: nothing more to do.
      if (free >= before) return;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  /** The rows as deliveries: the attempts of all of them are read in one query (no query per delivery), what the held ones wait for in another. */
  #completed(rows: DeliveryRow[]): Delivery[] {
    if (rows.length === 0) return [];
    const held = rows.filter(isHeld);
    const waiting = held.length === 0 ? [] : this.#prepared<WaitingRow>(sql.WAITING_BEHIND).all(JSON.stringify(held.map((row) => row.id)));
    return toDeliveries(rows, this.#prepared<AttemptRow>(sql.ATTEMPTS_OF).all(JSON.stringify(rows.map((row) => row.id))), waiting);
  }
}

/** The statement that queues one delivery, and its parameters: run here, or on a host's transaction (see host-transaction-writes.ts). */
export function deliveryInsert(
  { id, tenant, endpointId, eventType, payload, createdAt, orderingKey, test }: NewDelivery,
  traceparent: string | null,
): [statement: string, parameters: unknown[]] {
  const at = Math.round(createdAt);
  const columns = [id, tenant, endpointId, eventType, payload, at, at, at, traceparent, test ? 1 : 0];
  return orderingKey === undefined ? [sql.INSERT_DELIVERY, columns] : [sql.INSERT_DELIVERY_IN_LINE, [...columns, orderingKey]];
}
