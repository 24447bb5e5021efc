import { StorageError, type Delivery, type DeliveryAttempt, type DeliveryStatus, type PendingStats } from '@plant-store/core';
import {
  type AttemptOutcome,
  type ClaimDueOptions,
  type ClaimedDelivery,
  type EndpointAttemptStats,
  type ListDeliveriesQuery,
  type NewDelivery,
  type PruneDeliveriesOptions,
  type RequeueSelector,
  type StuckLine,
  type StuckLineKey,
  type WebhookOutbox,
  type ParkedChoice,
  ENDPOINT_DELETED_ERROR,
  ENDPOINT_DISABLED_ERROR,
  isTenantEndpointId,
  PARKED_DISCARDED_ERROR,
  storableText,
} from '@plant-store/core/adapter';
import { assertOpen, type MemoryLifecycle } from './memory-lifecycle.js';
import { releaseFirstIn, stuckLinesIn } from './memory-line-check.js';

/** Mutable state of one delivery; never handed out (callers get copies). */
interface DeliveryRecord {
  readonly message: NewDelivery;
  /** Insertion order: breaks ties between equal times, as a row id would. */
  readonly sequence: number;
  status: DeliveryStatus;
  /** Absent while held behind an earlier delivery of its line. */
  nextAttemptAt: number | undefined;
  leaseOwner: string | undefined;
  leaseExpiresAt: number;
  readonly attempts: DeliveryAttempt[];
  /** Attempts that count toward the retry schedule (interrupted ones do not). */
  countedAttempts: number;
  /** When it was delivered, failed (the end of its last attempt) or parked. */
  finishedAt: number;
}

/** The message's own fields only (a caller's extra properties are not stored), optional ones only when set. */
function copyMessage({ id, tenant, endpointId, eventType, payload, createdAt, orderingKey, traceparent, test }: NewDelivery): NewDelivery {
  return {
    id,
    tenant,
    endpointId,
    eventType,
    payload,
    createdAt,
    ...(orderingKey !== undefined && { orderingKey }),
    ...(traceparent !== undefined && { traceparent }),
    ...(test && { test }),
  };
}

/** Durations are kept in whole milliseconds, as durable adapters store them; `interrupted` comes from the outcome. */
function copyAttempt({ at, durationMs, statusCode, error, response }: DeliveryAttempt, interrupted: boolean | undefined): DeliveryAttempt {
  return {
    at,
    durationMs: Math.round(durationMs),
    ...(statusCode !== undefined && { statusCode }),
    ...(error !== undefined && { error }),
    ...(interrupted && { interrupted: true as const }),
    ...(response !== undefined && { response }),
  };
}

/** Whether the query's `tenant` may see the delivery: its own endpoints' deliveries only; every delivery without one. */
function inScope(message: NewDelivery, query: ListDeliveriesQuery): boolean {
  return query.tenant === undefined || (message.tenant === query.tenant && isTenantEndpointId(message.endpointId));
}

function matches({ message, status }: DeliveryRecord, query: ListDeliveriesQuery): boolean {
  return (
    inScope(message, query) &&
    (query.endpointId === undefined || message.endpointId === query.endpointId) &&
    (query.status === undefined || status === query.status) &&
    (query.eventType === undefined || message.eventType === query.eventType) &&
    (query.since === undefined || message.createdAt >= query.since) &&
    (query.until === undefined || message.createdAt < query.until)
  );
}

/** Newest first, then last inserted. */
const listOrder = (a: DeliveryRecord, b: DeliveryRecord) => b.message.createdAt - a.message.createdAt || b.sequence - a.sequence;

/** Attempt-log errors of attempts a delete, disable or discard wrote (not the receiver's doing): left out of the stats. */
const ENDED_BY_US: ReadonlySet<string> = new Set([ENDPOINT_DELETED_ERROR, ENDPOINT_DISABLED_ERROR, PARKED_DISCARDED_ERROR]);

/** Creation order: oldest first, then first inserted. */
const creationOrder = (a: DeliveryRecord, b: DeliveryRecord) => a.message.createdAt - b.message.createdAt || a.sequence - b.sequence;

/** Among due records only (both have a due time). */
const claimOrder = (a: DeliveryRecord, b: DeliveryRecord) => a.nextAttemptAt! - b.nextAttemptAt! || a.sequence - b.sequence;

/** The key of a delivery's line in the index of lines; `undefined` when it is in none. */
const lineOf = ({ endpointId, orderingKey }: Pick<NewDelivery, 'endpointId' | 'orderingKey'>) =>
  orderingKey === undefined ? undefined : JSON.stringify([endpointId, orderingKey]);

/** `waitingBehind`: the id of the delivery just before it in its line, while it is held. */
function toDelivery(record: DeliveryRecord, waitingBehind: string | undefined): Delivery {
  return {
    ...copyMessage(record.message),
    status: record.status,
    attemptCount: record.attempts.length,
    ...(record.status === 'pending' && record.nextAttemptAt !== undefined && { nextAttemptAt: record.nextAttemptAt }),
    ...(waitingBehind !== undefined && { waitingBehind }),
    attempts: record.attempts.map((attempt) => copyAttempt(attempt, attempt.interrupted)),
  };
}

/**
 * The webhook outbox in process memory: deliveries survive only as long as the process. Reads scan (plain beats fast
 * in tests), but claims and due times scan only the pending set, so a long-running dev server's history costs nothing.
 */
export class MemoryWebhookOutbox implements WebhookOutbox {
  readonly #records = new Map<string, DeliveryRecord>();
  readonly #pending = new Set<DeliveryRecord>();
  /** The pending deliveries of each line, in queue order: its first is due or in flight, the others held behind it. */
  readonly #lines = new Map<string, DeliveryRecord[]>();
  /** The parked deliveries of each endpoint in creation order: a bound drops from the front, a replay sends from it. */
  readonly #parked = new Map<string, DeliveryRecord[]>();
  readonly #lifecycle: MemoryLifecycle;
  readonly #parkedLimit: number;
  #sequence = 0;

  constructor(lifecycle: MemoryLifecycle, parkedLimit: number) {
    this.#lifecycle = lifecycle;
    this.#parkedLimit = parkedLimit;
  }

  /** Throws (writing nothing) when a delivery id is already stored or repeated: the memory twin of a primary-key violation. */
  assertInsertable(deliveries: readonly NewDelivery[]): void {
    const seen = new Set<string>();
    for (const { id } of deliveries) {
      if (this.#records.has(id) || seen.has(id)) throw new StorageError(`cannot queue delivery ${id}: a delivery with that id exists`);
      seen.add(id);
    }
  }

  /** Queues deliveries, each due at its `createdAt`. Call {@link assertInsertable} first. */
  insert(deliveries: readonly NewDelivery[]): void {
    for (const delivery of deliveries) this.#join(this.#newRecord(delivery), delivery.createdAt);
  }

  /**
   * Parks deliveries for disabled endpoints, then drops the oldest parked ones of each beyond the bound. Call
   * {@link assertInsertable} first. Returns how many were dropped, by endpoint (none: an empty map).
   */
  park(deliveries: readonly NewDelivery[]): Map<string, number> {
    for (const delivery of deliveries) this.#park(this.#newRecord(delivery), delivery.createdAt);
    return this.#bound(new Set(deliveries.map((delivery) => delivery.endpointId)));
  }

  /**
   * Parks every pending delivery to the endpoint but those in flight (its lines' held ones too), as its disable does, then applies
   * the bound. Returns how many were dropped.
   */
  parkPending(endpointId: string, at: number): number {
    const waiting = [...this.#pending].filter(({ message, leaseExpiresAt }) => message.endpointId === endpointId && leaseExpiresAt <= at);
    for (const record of waiting.sort(creationOrder)) this.#parkFromPending(record, at);
    return this.#bound(new Set([endpointId])).get(endpointId) ?? 0;
  }

  /**
   * What enabling the endpoint does with its parked deliveries: a replay makes those created at or after `since` pending, due at `at`,
   * in creation order (each joining the back of its line); the others, and all of them on a discard, end failed, saying so.
   */
  unpark(endpointId: string, choice: ParkedChoice, at: number): void {
    const since = choice.action === 'replay' ? (choice.since ?? Number.NEGATIVE_INFINITY) : Number.POSITIVE_INFINITY;
    for (const record of this.#takeParked(endpointId)) {
      if (record.message.createdAt < since) this.#endParked(record, at, PARKED_DISCARDED_ERROR);
      else {
        record.status = 'pending';
        this.#join(record, at);
      }
    }
  }

  /** The endpoint's parked deliveries, in creation order, no longer listed as parked. */
  #takeParked(endpointId: string): DeliveryRecord[] {
    const parked = this.#parked.get(endpointId) ?? [];
    this.#parked.delete(endpointId);
    return parked;
  }

  /** Failed at `at`, with a last attempt saying why (what ended it, not the receiver). */
  #endParked(record: DeliveryRecord, at: number, error: string): void {
    record.attempts.push({ at, durationMs: 0, error });
    record.countedAttempts++;
    record.status = 'failed';
    record.finishedAt = at;
  }

  #newRecord(delivery: NewDelivery): DeliveryRecord {
    const record: DeliveryRecord = {
      message: copyMessage(delivery),
      sequence: this.#sequence++,
      status: 'pending',
      nextAttemptAt: undefined,
      leaseOwner: undefined,
      leaseExpiresAt: -Infinity,
      attempts: [],
      countedAttempts: 0,
      finishedAt: 0,
    };
    this.#records.set(delivery.id, record);
    return record;
  }

  /** A pending delivery parked from `at`: out of the pending set and its line (the next of which is released), then parked. */
  #parkFromPending(record: DeliveryRecord, at: number): void {
    this.#pending.delete(record);
    this.#leave(record, at);
    this.#park(record, at);
  }

  /** Parked from `at` (out of the pending set and its line already), in its endpoint's creation order. */
  #park(record: DeliveryRecord, at: number): void {
    record.status = 'parked';
    record.nextAttemptAt = undefined;
    record.finishedAt = at;
    const endpointId = record.message.endpointId;
    const parked = this.#parked.get(endpointId);
    if (!parked) this.#parked.set(endpointId, [record]);
    else {
      parked.push(record);
      // Nearly always the newest; one parked by its attempt was created earlier than those parked while it ran.
      if (parked.length > 1 && creationOrder(parked.at(-2)!, record) > 0) parked.sort(creationOrder);
    }
  }

  /** Drops the oldest parked deliveries of these endpoints beyond the bound; how many, by endpoint. */
  #bound(endpointIds: ReadonlySet<string>): Map<string, number> {
    const dropped = new Map<string, number>();
    for (const endpointId of endpointIds) {
      const parked = this.#parked.get(endpointId) ?? [];
      const over = parked.length - this.#parkedLimit;
      if (over <= 0) continue;
      for (const record of parked.splice(0, over)) this.#records.delete(record.message.id);
      if (parked.length === 0) this.#parked.delete(endpointId);
      dropped.set(endpointId, over);
    }
    return dropped;
  }

  async enqueue(delivery: NewDelivery): Promise<void> {
    assertOpen(this.#lifecycle);
    this.assertInsertable([delivery]);
    this.insert([delivery]);
  }

  async claimDue({ owner, now, leaseMs, limit, skipEndpoints = [] }: ClaimDueOptions): Promise<ClaimedDelivery[]> {
    const due = this.#claimable(now).filter((record) => !skipEndpoints.includes(record.message.endpointId));
    const leaseExpiresAt = now + leaseMs;
    return due.slice(0, Math.max(0, limit)).map((record) => {
      record.leaseOwner = owner;
      record.leaseExpiresAt = leaseExpiresAt;
      return { ...copyMessage(record.message), attemptCount: record.countedAttempts, leaseExpiresAt };
    });
  }

  async recordAttempt(id: string, owner: string, attempt: DeliveryAttempt, outcome: AttemptOutcome): Promise<boolean> {
    assertOpen(this.#lifecycle);
    const record = this.#records.get(id);
    if (record?.status !== 'pending' || record.leaseOwner !== owner) return false;
    record.leaseOwner = undefined;
    record.leaseExpiresAt = -Infinity;
    const interrupted = outcome.status === 'interrupted';
    const { error, response } = attempt;
    const stored = {
      ...attempt,
      ...(error !== undefined && { error: storableText(error) }),
      ...(response !== undefined && { response: storableText(response) }),
    };
    record.attempts.push(copyAttempt(stored, interrupted));
    // Interrupted: still pending and due as before, and not counted.
    if (outcome.status === 'interrupted') return true;
    // Parked: the endpoint is off, which says nothing of the receiver; no retry is used up.
    if (outcome.status === 'parked') {
      this.#parkFromPending(record, Math.round(attempt.at + attempt.durationMs));
      return true;
    }
    record.countedAttempts++;
    if (outcome.status === 'pending') record.nextAttemptAt = outcome.nextAttemptAt;
    else this.#finish(record, outcome.status, Math.round(attempt.at + attempt.durationMs));
    return true;
  }

  async release(ids: readonly string[], owner: string): Promise<void> {
    assertOpen(this.#lifecycle);
    for (const id of ids) {
      const record = this.#records.get(id);
      if (record?.leaseOwner !== owner) continue;
      record.leaseOwner = undefined;
      record.leaseExpiresAt = -Infinity;
    }
  }

  async nextDueAt(): Promise<number | undefined> {
    assertOpen(this.#lifecycle);
    let next: number | undefined;
    for (const record of this.#pending) {
      if (record.nextAttemptAt !== undefined) next = Math.min(next ?? Infinity, Math.max(record.nextAttemptAt, record.leaseExpiresAt));
    }
    return next;
  }

  async waitingSince(now: number): Promise<ReadonlyMap<string, number>> {
    const waiting = new Map<string, number>();
    // In claim order: an endpoint's first one is the one waiting longest.
    for (const record of this.#claimable(now)) if (!waiting.has(record.message.endpointId)) waiting.set(record.message.endpointId, record.nextAttemptAt!);
    return waiting;
  }

  async pendingStats(): Promise<PendingStats> {
    assertOpen(this.#lifecycle);
    let oldestCreatedAt = Infinity;
    for (const { message } of this.#pending) oldestCreatedAt = Math.min(oldestCreatedAt, message.createdAt);
    return this.#pending.size === 0 ? { count: 0 } : { count: this.#pending.size, oldestCreatedAt };
  }

  async get(id: string): Promise<Delivery | undefined> {
    assertOpen(this.#lifecycle);
    const record = this.#records.get(id);
    return record && this.#toDelivery(record);
  }

  async list(query: ListDeliveriesQuery = {}): Promise<Delivery[] | undefined> {
    assertOpen(this.#lifecycle);
    const cursor = query.after === undefined ? undefined : this.#records.get(query.after);
    if (query.after !== undefined && (!cursor || !inScope(cursor.message, query))) return undefined;
    const matching = [...this.#records.values()].filter((record) => matches(record, query) && (!cursor || listOrder(cursor, record) < 0));
    return matching
      .sort(listOrder)
      .slice(0, Math.max(0, query.limit ?? 100))
      .map((record) => this.#toDelivery(record));
  }

  #toDelivery(record: DeliveryRecord): Delivery {
    if (record.status !== 'pending' || record.nextAttemptAt !== undefined) return toDelivery(record, undefined);
    const line = this.#lines.get(lineOf(record.message) ?? '');
    return toDelivery(record, line?.[line.indexOf(record) - 1]?.message.id);
  }

  async endpointAttemptStats(endpointId: string, since: readonly number[]): Promise<EndpointAttemptStats> {
    assertOpen(this.#lifecycle);
    const windows = since.map(() => ({ succeeded: 0, failed: 0 }));
    const earliest = Math.min(...since);
    let last: DeliveryAttempt | undefined;
    for (const record of this.#records.values()) {
      if (record.message.endpointId !== endpointId) continue;
      for (const attempt of record.attempts) {
        // Left out: interrupted attempts, and those a delete or disable of the endpoint wrote.
        if (attempt.interrupted || ENDED_BY_US.has(attempt.error ?? '') || attempt.at < earliest) continue;
        const succeeded = attempt.statusCode !== undefined && attempt.statusCode >= 200 && attempt.statusCode < 300;
        since.forEach((start, index) => {
          if (attempt.at >= start) windows[index]![succeeded ? 'succeeded' : 'failed']++;
        });
        if (!last || attempt.at > last.at) last = attempt;
      }
    }
    if (!last) return { windows };
    return { windows, lastAttempt: { at: last.at, ...(last.statusCode !== undefined && { statusCode: last.statusCode }) } };
  }

  async requeue(selector: RequeueSelector, now: number): Promise<number> {
    assertOpen(this.#lifecycle);
    const selected = [...this.#records.values()].filter((record) =>
      'id' in selector
        ? record.message.id === selector.id && (selector.from === 'any' || record.status === 'failed')
        : record.message.endpointId === selector.endpointId && record.status === 'failed' && record.message.createdAt >= selector.since,
    );
    // In creation order, so a recovery queues each line's messages as they were first queued. A lease it holds stays
    // (only a pending delivery has one), and a pending one keeps its place in its line, as in the durable storages.
    for (const record of selected.sort(creationOrder)) {
      if (record.status === 'pending') {
        if (record.nextAttemptAt !== undefined) record.nextAttemptAt = now;
        continue;
      }
      if (record.status === 'parked') this.#unlistParked(record);
      record.status = 'pending';
      this.#join(record, now);
    }
    return selected.length;
  }

  /** Ends every pending or parked delivery to the endpoint (its lines and the rest) but those in flight as failed, with a last attempt saying why: its delete. */
  endLines(endpointId: string, at: number, error: string): void {
    for (const record of this.#takeParked(endpointId)) this.#endParked(record, at, error);
    // One in flight (a live lease) is left to finish: its next attempt, if any, finds the endpoint disabled or gone.
    const ended = [...this.#pending].filter(({ message, leaseExpiresAt }) => message.endpointId === endpointId && leaseExpiresAt <= at);
    for (const record of ended) {
      record.attempts.push({ at, durationMs: 0, error });
      record.countedAttempts++;
      record.leaseOwner = undefined;
      record.leaseExpiresAt = -Infinity;
      this.#finish(record, 'failed', at);
    }
  }

  async stuckLines(limit: number): Promise<StuckLine[]> {
    assertOpen(this.#lifecycle);
    return stuckLinesIn(this.#lines.values(), this.#unlinedPending(), limit);
  }

  async releaseStuckLine(line: StuckLineKey, now: number): Promise<number> {
    assertOpen(this.#lifecycle);
    if (line.orderingKey !== undefined) return releaseFirstIn(this.#lines.get(lineOf(line)!) ?? [], now) ? 1 : 0;
    // Messages of no line wait for nothing: each one without a due time becomes due.
    const held = this.#unlinedPending().filter((record) => record.message.endpointId === line.endpointId && record.nextAttemptAt === undefined);
    for (const record of held) record.nextAttemptAt = now;
    return held.length;
  }

  #unlinedPending(): DeliveryRecord[] {
    return [...this.#pending].filter((record) => record.message.orderingKey === undefined);
  }

  async prune(options: PruneDeliveriesOptions): Promise<number> {
    assertOpen(this.#lifecycle);
    const old = [...this.#records.values()].filter((record) => record.status !== 'pending' && record.finishedAt < options.olderThan);
    const doomed = old.sort((a, b) => a.finishedAt - b.finishedAt).slice(0, Math.max(0, options.limit));
    for (const record of doomed) {
      this.#records.delete(record.message.id);
      if (record.status === 'parked') this.#unlistParked(record);
    }
    return doomed.length;
  }

  #unlistParked(record: DeliveryRecord): void {
    const parked = this.#parked.get(record.message.endpointId) ?? [];
    parked.splice(parked.indexOf(record), 1);
    if (parked.length === 0) this.#parked.delete(record.message.endpointId);
  }

  #finish(record: DeliveryRecord, status: 'delivered' | 'failed', at: number): void {
    record.status = status;
    record.finishedAt = at;
    this.#pending.delete(record);
    this.#leave(record, at);
  }

  /** Pending again (or for the first time): due at `dueAt`, unless its line is busy (then held at its back). */
  #join(record: DeliveryRecord, dueAt: number): void {
    this.#pending.add(record);
    const key = lineOf(record.message);
    const line = key === undefined ? undefined : this.#lines.get(key);
    record.nextAttemptAt = line ? undefined : dueAt;
    if (line) line.push(record);
    else if (key !== undefined) this.#lines.set(key, [record]);
  }

  /** Out of its line, which it ended at `at`: the first held one of the line becomes due then, unless another is due already. */
  #leave(record: DeliveryRecord, at: number): void {
    const key = lineOf(record.message);
    const line = key === undefined ? undefined : this.#lines.get(key);
    if (!line) return;
    line.splice(line.indexOf(record), 1);
    if (line.length === 0) this.#lines.delete(key!);
    else releaseFirstIn(line, at);
  }

  /** The pending deliveries due at `now` that no live lease holds, in claim order. */
  #claimable(now: number): DeliveryRecord[] {
    assertOpen(this.#lifecycle);
    return [...this.#pending]
      .filter((record) => record.nextAttemptAt !== undefined && record.nextAttemptAt <= now && record.leaseExpiresAt <= now)
      .sort(claimOrder);
  }
}
