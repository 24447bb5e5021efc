import type { Database as BetterSqlite3, Statement } from 'better-sqlite3';
import type { Delivery, DeliveryAttempt, DeliveryStatus, PendingStats } from '@plant-store/core';
import type {
  AttemptOutcome,
  ClaimDueOptions,
  ClaimedDelivery,
  EndpointAttemptStats,
  ListDeliveriesQuery,
  NewDelivery,
  PruneDeliveriesOptions,
  ReclaimSpaceOptions,
  RequeueSelector,
  WebhookOutbox,
} from '@plant-store/core/adapter';
import {
  claimOrder,
  toClaimedDelivery,
  toDeliveries,
  wholeMs,
  type AttemptRow,
  type ClaimRow,
  type CursorRow,
  type DeliveryRow,
  type DueRow,
} from './delivery-rows.js';
import {
  APPLY_INTERRUPTED,
  APPLY_OUTCOME,
  ATTEMPTS_OF,
  CLAIM_DUE,
  DELETE_DELIVERIES,
  deliveriesKey,
  deliveriesShape,
  DUE_FOR_ENDPOINT,
  endpointStatsSql,
  ENQUEUE_DELIVERY,
  FREE_PAGES,
  INSERT_ATTEMPT,
  INSERT_DELIVERY,
  LEASE_DELIVERIES,
  LIST_CURSOR,
  listDeliveriesParameters,
  listDeliveriesSql,
  NEXT_DUE_AT,
  WAITING_SINCE,
  PENDING_ENDPOINTS,
  PENDING_STATS,
  PRUNABLE,
  RECLAIM_STEP,
  RELEASE_LEASES,
  REQUEUE_ANY,
  REQUEUE_FAILED,
  REQUEUE_FAILED_SINCE,
  SELECT_DELIVERY,
} from './outbox-queries.js';
import { shapedStatement, type ShapedStatements } from './shaped-statements.js';
import { withSqliteErrors, withSqliteWrite, type GuardedWrites } from './sqlite-error.js';

const DEFAULT_LIST_LIMIT = 100;

type NewDeliveryParameters = [
  id: string,
  tenant: string,
  endpointId: string,
  eventType: string,
  payload: string,
  dueAt: number,
  createdAt: number,
  updatedAt: number,
];

/** The outbox statements: prepared once per storage, the shaped ones once per shape. */
interface OutboxStatements {
  readonly insert: Statement<[...NewDeliveryParameters, traceparent: string | null]>;
  readonly enqueue: Statement<[...NewDeliveryParameters, test: number]>;
  readonly claim: Statement<[owner: string, leaseExpiresAt: number, now: number, now: number, now: number, limit: number], ClaimRow>;
  /** The ids alone (plucked). */
  readonly pendingEndpoints: Statement<[], string>;
  readonly dueForEndpoint: Statement<[endpointId: string, now: number, now: number, limit: number], DueRow>;
  readonly lease: Statement<[owner: string, leaseExpiresAt: number, now: number, ids: string], ClaimRow>;
  /** The time alone (plucked). */
  readonly nextDueAt: Statement<[], bigint | null>;
  readonly waitingSince: Statement<[{ now: number }], { id: string; since: bigint | null }>;
  /** A raw row: [count, oldest created at]. */
  readonly pendingStats: Statement<[], [bigint, bigint | null]>;
  readonly release: Statement<[ids: string, owner: string]>;
  readonly applyOutcome: Statement<[status: DeliveryStatus, nextAttemptAt: number | null, updatedAt: number, id: string, owner: string]>;
  readonly applyInterrupted: Statement<[updatedAt: number, id: string, owner: string]>;
  readonly insertAttempt: Statement<
    [id: string, id: string, at: number, durationMs: number, statusCode: number | null, error: string | null, interrupted: number, response: string | null]
  >;
  /** The ids alone (plucked). */
  readonly prunable: Statement<[olderThan: number, limit: number], string>;
  readonly deleteDeliveries: Statement<[ids: string]>;
  /** The count alone (plucked). */
  readonly freePages: Statement<[], bigint>;
  readonly select: Statement<[id: string], DeliveryRow>;
  readonly attemptsOf: Statement<[ids: string], AttemptRow>;
  readonly listCursor: Statement<[{ id: string; tenant: string | null }], CursorRow>;
  /** By shape (`deliveriesKey`), prepared on first use; parameters from `listDeliveriesParameters`. */
  readonly lists: ShapedStatements<Statement<unknown[], DeliveryRow>>;
  readonly requeueAny: Statement<[dueAt: number, updatedAt: number, id: string]>;
  readonly requeueFailed: Statement<[dueAt: number, updatedAt: number, id: string]>;
  readonly requeueFailedSince: Statement<[dueAt: number, updatedAt: number, endpointId: string, since: number]>;
  /** By number of windows, prepared on first use; a raw row (see `endpointStatsSql`). */
  readonly endpointStats: ShapedStatements<Statement<[Record<string, string | number>], (bigint | null)[]>>;
}

function prepareStatements(db: BetterSqlite3): OutboxStatements {
  return {
    insert: db.prepare(INSERT_DELIVERY),
    enqueue: db.prepare(ENQUEUE_DELIVERY),
    claim: db.prepare<[string, number, number, number, number, number], ClaimRow>(CLAIM_DUE),
    pendingEndpoints: db.prepare<[], string>(PENDING_ENDPOINTS).pluck(true),
    dueForEndpoint: db.prepare<[string, number, number, number], DueRow>(DUE_FOR_ENDPOINT),
    lease: db.prepare<[string, number, number, string], ClaimRow>(LEASE_DELIVERIES),
    nextDueAt: db.prepare<[], bigint | null>(NEXT_DUE_AT).pluck(true),
    waitingSince: db.prepare<[{ now: number }], { id: string; since: bigint | null }>(WAITING_SINCE),
    pendingStats: db.prepare<[], [bigint, bigint | null]>(PENDING_STATS).raw(true),
    release: db.prepare(RELEASE_LEASES),
    applyOutcome: db.prepare(APPLY_OUTCOME),
    applyInterrupted: db.prepare(APPLY_INTERRUPTED),
    insertAttempt: db.prepare(INSERT_ATTEMPT),
    prunable: db.prepare<[number, number], string>(PRUNABLE).pluck(true),
    deleteDeliveries: db.prepare(DELETE_DELIVERIES),
    freePages: db.prepare<[], bigint>(FREE_PAGES).pluck(true),
    select: db.prepare<[string], DeliveryRow>(SELECT_DELIVERY),
    attemptsOf: db.prepare<[string], AttemptRow>(ATTEMPTS_OF),
    listCursor: db.prepare<[{ id: string; tenant: string | null }], CursorRow>(LIST_CURSOR),
    lists: new Map(),
    requeueAny: db.prepare(REQUEUE_ANY),
    requeueFailed: db.prepare(REQUEUE_FAILED),
    requeueFailedSince: db.prepare(REQUEUE_FAILED_SINCE),
    endpointStats: new Map(),
  };
}

type RecordAttempt = (id: string, owner: string, attempt: DeliveryAttempt, outcome: AttemptOutcome) => boolean;

/**
 * The webhook outbox in SQLite. Every statement is prepared once (see
 * outbox-queries.ts) and run on better-sqlite3; reads that take several
 * statements run them in one transaction, so they see one snapshot.
 */
export class SqliteWebhookOutbox implements WebhookOutbox {
  readonly #db: BetterSqlite3;
  readonly #file: GuardedWrites;
  readonly #statements: OutboxStatements;
  /** Runs reads in one transaction, so a delivery and its attempts come from one snapshot even with other processes writing. */
  readonly #snapshot: <T>(read: () => T) => T;
  readonly #recordAttempt: RecordAttempt;
  readonly #prune: (olderThan: number, limit: number) => number;

  constructor(db: BetterSqlite3, file: GuardedWrites) {
    this.#db = db;
    this.#file = file;
    // One transaction function for every read (db.transaction builds a new wrapper each time it is called).
    const inOneTransaction = db.transaction((read: () => unknown) => read());
    this.#snapshot = <T>(read: () => T) => inOneTransaction(read) as T;
    this.#statements = prepareStatements(db);
    this.#recordAttempt = recordAttemptStatements(this.#statements);
    this.#prune = pruneStatements(this.#statements);
  }

  /** Queues deliveries, each due at its `createdAt`. Runs inside the caller's transaction (the plant's create). */
  queue(deliveries: readonly NewDelivery[]): void {
    for (const delivery of deliveries) {
      const createdAt = wholeMs(delivery.createdAt);
      const { traceparent = null } = delivery;
      this.#statements.insert.run(
        delivery.id,
        delivery.tenant,
        delivery.endpointId,
        delivery.eventType,
        delivery.payload,
        createdAt,
        createdAt,
        createdAt,
        traceparent,
      );
    }
  }

  async enqueue(delivery: NewDelivery): Promise<void> {
    withSqliteWrite(this.#file, 'queue the delivery', () => {
      const createdAt = wholeMs(delivery.createdAt);
      const { id, tenant, endpointId, eventType, payload } = delivery;
      this.#statements.enqueue.run(id, tenant, endpointId, eventType, payload, createdAt, createdAt, createdAt, delivery.test ? 1 : 0);
    });
  }

  async claimDue(options: ClaimDueOptions): Promise<ClaimedDelivery[]> {
    return withSqliteWrite(this.#file, 'claim due deliveries', () => {
      const { owner, limit } = options;
      if (limit < 1) return [];
      const now = wholeMs(options.now);
      const leaseExpiresAt = wholeMs(options.now + options.leaseMs);
      const skip = options.skipEndpoints ?? [];
      const rows =
        skip.length === 0
          ? this.#statements.claim.all(owner, leaseExpiresAt, now, now, now, limit)
          : this.#claimPassingOver(new Set(skip), owner, leaseExpiresAt, now, limit);
      return rows.sort(claimOrder).map((row) => toClaimedDelivery(row, leaseExpiresAt));
    });
  }

  /**
   * The claim of `claimDue` for the endpoints not in `passed`, endpoint by endpoint (see PENDING_ENDPOINTS). Inside
   * its IMMEDIATE transaction: no other connection writes between the reads and the lease, so what was read as
   * claimable still is.
   */
  #claimPassingOver(passed: ReadonlySet<string>, owner: string, leaseExpiresAt: number, now: number, limit: number): ClaimRow[] {
    const due: DueRow[] = [];
    for (const endpointId of this.#statements.pendingEndpoints.all()) {
      if (!passed.has(endpointId)) due.push(...this.#statements.dueForEndpoint.all(endpointId, now, now, limit));
    }
    if (due.length === 0) return [];
    const ids = due
      .sort(claimOrder)
      .slice(0, limit)
      .map((row) => row.id);
    return this.#statements.lease.all(owner, leaseExpiresAt, now, JSON.stringify(ids));
  }

  async recordAttempt(id: string, owner: string, attempt: DeliveryAttempt, outcome: AttemptOutcome): Promise<boolean> {
    return withSqliteWrite(this.#file, 'record the delivery attempt', () => this.#recordAttempt(id, owner, attempt, outcome));
  }

  async nextDueAt(): Promise<number | undefined> {
    return withSqliteErrors('find the next due delivery', () => {
      const at = this.#statements.nextDueAt.get();
      return at === null || at === undefined ? undefined : Number(at);
    });
  }

  async waitingSince(now: number): Promise<ReadonlyMap<string, number>> {
    return withSqliteErrors('find the deliveries waiting for a slot', () => {
      const waiting = new Map<string, number>();
      for (const { id, since } of this.#statements.waitingSince.all({ now: wholeMs(now) })) if (since !== null) waiting.set(id, Number(since));
      return waiting;
    });
  }

  async pendingStats(): Promise<PendingStats> {
    return withSqliteErrors('count pending deliveries', () => {
      const [count, oldest] = this.#statements.pendingStats.get()!;
      return oldest === null ? { count: 0 } : { count: Number(count), oldestCreatedAt: Number(oldest) };
    });
  }

  async release(ids: readonly string[], owner: string): Promise<void> {
    withSqliteWrite(this.#file, 'release delivery leases', () => this.#statements.release.run(JSON.stringify(ids), owner));
  }

  async get(id: string): Promise<Delivery | undefined> {
    return withSqliteErrors('read the delivery', () =>
      this.#snapshot(() => {
        const row = this.#statements.select.get(id);
        return row && this.#withAttempts([row])[0];
      }),
    );
  }

  async list(query: ListDeliveriesQuery = {}): Promise<Delivery[] | undefined> {
    return withSqliteErrors('list deliveries', () =>
      this.#snapshot(() => {
        const cursor = query.after === undefined ? undefined : this.#statements.listCursor.get({ id: query.after, tenant: query.tenant ?? null });
        if (query.after !== undefined && !cursor) return undefined;
        const shape = deliveriesShape(query, cursor);
        const statement = shapedStatement(this.#statements.lists, deliveriesKey(shape), () =>
          this.#db.prepare<unknown[], DeliveryRow>(listDeliveriesSql(shape)),
        );
        return this.#withAttempts(statement.all(...listDeliveriesParameters(query, cursor, query.limit ?? DEFAULT_LIST_LIMIT)));
      }),
    );
  }

  async endpointAttemptStats(endpointId: string, since: readonly number[]): Promise<EndpointAttemptStats> {
    return withSqliteErrors("count the endpoint's attempts", () => {
      const starts = since.map((start) => Math.ceil(start));
      const parameters = { endpoint: endpointId, earliest: Math.min(...starts), ...Object.fromEntries(starts.map((start, index) => [`w${index}`, start])) };
      const statement = shapedStatement(this.#statements.endpointStats, starts.length, () =>
        this.#db.prepare<[Record<string, string | number>], (bigint | null)[]>(endpointStatsSql(starts.length)).raw(true),
      );
      const row = statement.get(parameters)!;
      const windows = starts.map((_, index) => ({ succeeded: Number(row[2 * index] ?? 0), failed: Number(row[2 * index + 1] ?? 0) }));
      const [at, statusCode] = row.slice(2 * starts.length);
      if (at === null || at === undefined) return { windows };
      return {
        windows,
        lastAttempt: statusCode === null || statusCode === undefined ? { at: Number(at) } : { at: Number(at), statusCode: Number(statusCode) },
      };
    });
  }

  async requeue(selector: RequeueSelector, now: number): Promise<number> {
    const at = wholeMs(now);
    if (!('id' in selector)) {
      const { endpointId, since } = selector;
      return withSqliteWrite(
        this.#file,
        "recover the endpoint's deliveries",
        () => this.#statements.requeueFailedSince.run(at, at, endpointId, Math.ceil(since)).changes,
      );
    }
    const { id, from } = selector;
    const statement = from === 'any' ? this.#statements.requeueAny : this.#statements.requeueFailed;
    return withSqliteWrite(this.#file, from === 'any' ? 'resend the delivery' : 'requeue the delivery', () => statement.run(at, at, id).changes);
  }

  async prune(options: PruneDeliveriesOptions): Promise<number> {
    return withSqliteWrite(this.#file, 'prune finished deliveries', () => {
      if (options.limit < 1) return 0;
      return this.#prune(Math.ceil(options.olderThan), Math.trunc(options.limit));
    });
  }

  /**
   * Hands the pages pruning freed back to the file system (incremental
   * auto-vacuum), so the file shrinks back instead of keeping its largest
   * size. Not in the prune's transaction: in steps of a few pages, each a
   * short transaction of its own with the event loop handed back between
   * them, so requests never wait for more than one step. Free pages not
   * handed back yet are reused by the next writes anyway.
   */
  async reclaimSpace(options: ReclaimSpaceOptions = {}): Promise<void> {
    let free = withSqliteErrors('count free pages', () => this.#statements.freePages.get()!);
    while (free > 0n && !options.signal?.aborted) {
      const before = free;
      free = withSqliteWrite(this.#file, 'reclaim free pages', () => {
        this.#db.exec(RECLAIM_STEP);
        return this.#statements.freePages.get()!;
      });
      // A file without incremental auto-vacuum keeps its free pages: nothing more to do.
      if (free >= before) return;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  /** The rows as deliveries, with the attempts of all of them read in one query (no query per delivery). */
  #withAttempts(rows: DeliveryRow[]): Delivery[] {
    if (rows.length === 0) return [];
    return toDeliveries(rows, this.#statements.attemptsOf.all(JSON.stringify(rows.map((row) => row.id))));
  }
}

/**
 * `recordAttempt`: the outcome under the lease, then the attempt row. Runs
 * inside the guarded write's IMMEDIATE transaction (see withSqliteWrite); a
 * transaction of its own would only nest as a savepoint, two more statements
 * per attempt.
 */
function recordAttemptStatements(s: OutboxStatements): RecordAttempt {
  return (id, owner, attempt, outcome) => {
    const at = wholeMs(attempt.at);
    const durationMs = wholeMs(attempt.durationMs);
    const interrupted = outcome.status === 'interrupted';
    const changes = interrupted
      ? s.applyInterrupted.run(at + durationMs, id, owner).changes
      : s.applyOutcome.run(outcome.status, outcome.status === 'pending' ? wholeMs(outcome.nextAttemptAt) : null, at + durationMs, id, owner).changes;
    if (changes === 0) return false;
    s.insertAttempt.run(id, id, at, durationMs, attempt.statusCode ?? null, attempt.error ?? null, interrupted ? 1 : 0, attempt.response ?? null);
    return true;
  };
}

/** `prune`'s batch: pick it, delete it (the foreign key deletes the attempts with it). Runs inside the guarded write's transaction, like `recordAttemptStatements`. */
function pruneStatements(s: OutboxStatements): (olderThan: number, limit: number) => number {
  return (olderThan, limit) => {
    const ids = s.prunable.all(olderThan, limit);
    if (ids.length === 0) return 0;
    return s.deleteDeliveries.run(JSON.stringify(ids)).changes;
  };
}
