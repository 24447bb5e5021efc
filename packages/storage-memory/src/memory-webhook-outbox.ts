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
  type WebhookOutbox,
  ENDPOINT_DELETED_ERROR,
  ENDPOINT_DISABLED_ERROR,
  isTenantEndpointId,
} from '@plant-store/core/adapter';
import { assertOpen, type MemoryLifecycle } from './memory-lifecycle.js';

/** Mutable state of one delivery; never handed out (callers get copies). */
interface DeliveryRecord {
  readonly message: NewDelivery;
  /** Insertion order: breaks ties between equal times, as a row id would. */
  readonly sequence: number;
  status: DeliveryStatus;
  nextAttemptAt: number | undefined;
  leaseOwner: string | undefined;
  leaseExpiresAt: number | undefined;
  readonly attempts: DeliveryAttempt[];
  /** Attempts that count toward the retry schedule (interrupted ones do not). */
  countedAttempts: number;
  /** When it was delivered or failed (the end of its last attempt); undefined while pending. */
  finishedAt: number | undefined;
}

const DEFAULT_LIST_LIMIT = 100;

/** The message's own fields only (a caller's extra properties are not stored), optional ones only when set. */
function copyMessage(message: NewDelivery): NewDelivery {
  const { id, tenant, endpointId, eventType, payload, createdAt, traceparent } = message;
  const copy: { -readonly [K in keyof NewDelivery]: NewDelivery[K] } = {
    id,
    tenant,
    endpointId,
    eventType,
    payload,
    createdAt,
  };
  if (traceparent !== undefined) copy.traceparent = traceparent;
  if (message.test) copy.test = true;
  return copy;
}

/** Whether the query's `tenant` may see the delivery: its own endpoints' deliveries only; every delivery without one. */
function inScope(message: NewDelivery, query: ListDeliveriesQuery): boolean {
  return query.tenant === undefined || (message.tenant === query.tenant && isTenantEndpointId(message.endpointId));
}

/** The query's filters other than the cursor. */
function matches(record: DeliveryRecord, query: ListDeliveriesQuery): boolean {
  const { message } = record;
  if (!inScope(message, query)) return false;
  if (query.endpointId !== undefined && message.endpointId !== query.endpointId) return false;
  if (query.status !== undefined && record.status !== query.status) return false;
  if (query.eventType !== undefined && message.eventType !== query.eventType) return false;
  if (query.since !== undefined && message.createdAt < query.since) return false;
  return query.until === undefined || message.createdAt < query.until;
}

/** Whether the selector picks the delivery (an id selector's record is found by id). */
function selects(record: DeliveryRecord, selector: RequeueSelector): boolean {
  if ('id' in selector) return selector.from === 'any' || record.status === 'failed';
  return record.message.endpointId === selector.endpointId && record.status === 'failed' && record.message.createdAt >= selector.since;
}

/** Whether an attempt counts in an endpoint's statistics: not interrupted, and not written by a delete or disable of the endpoint. */
function countsForStats(attempt: DeliveryAttempt): boolean {
  return !attempt.interrupted && attempt.error !== ENDPOINT_DELETED_ERROR && attempt.error !== ENDPOINT_DISABLED_ERROR;
}

/** Durations are kept in whole milliseconds, as durable adapters store them (sub-ms clocks are rounded). */
function copyAttempt(attempt: DeliveryAttempt): DeliveryAttempt {
  const copy: { -readonly [K in keyof DeliveryAttempt]: DeliveryAttempt[K] } = {
    at: attempt.at,
    durationMs: Math.round(attempt.durationMs),
  };
  if (attempt.statusCode !== undefined) copy.statusCode = attempt.statusCode;
  if (attempt.error !== undefined) copy.error = attempt.error;
  if (attempt.interrupted) copy.interrupted = true;
  if (attempt.response !== undefined) copy.response = attempt.response;
  return copy;
}

/** The attempt as the log keeps it: `interrupted` comes from the outcome, not from the caller. */
function storedAttempt(attempt: DeliveryAttempt, interrupted: boolean): DeliveryAttempt {
  const { interrupted: _ignored, ...fields } = copyAttempt(attempt);
  return interrupted ? { ...fields, interrupted: true } : fields;
}

/** Newest first (creation time, then insertion): the order listings show. */
function listOrder(a: DeliveryRecord, b: DeliveryRecord): number {
  return b.message.createdAt - a.message.createdAt || b.sequence - a.sequence;
}

/** Earliest due first, then oldest: the order claims take deliveries in. */
function claimOrder(a: DeliveryRecord, b: DeliveryRecord): number {
  return a.nextAttemptAt! - b.nextAttemptAt! || a.sequence - b.sequence;
}

function toDelivery(record: DeliveryRecord): Delivery {
  return {
    ...copyMessage(record.message),
    status: record.status,
    attemptCount: record.attempts.length,
    ...(record.status === 'pending' ? { nextAttemptAt: record.nextAttemptAt } : {}),
    attempts: record.attempts.map(copyAttempt),
  };
}

/** The webhook outbox in process memory: deliveries survive only as long as the process. */
export class MemoryWebhookOutbox implements WebhookOutbox {
  readonly #records = new Map<string, DeliveryRecord>();
  // Pending deliveries only (never the delivered history), by endpoint, each
  // endpoint's kept in claim order: due time, then insertion. A claim takes
  // from the front of each endpoint it may claim for, and stops at the first
  // delivery not yet due or once it has `limit`: it neither sorts the backlog
  // nor walks past the deliveries of an endpoint it skips (one at its cap of
  // attempts in flight, whose backlog may be the whole outbox).
  readonly #pending = new Map<string, DeliveryRecord[]>();
  readonly #lifecycle: MemoryLifecycle;
  #sequence = 0;

  constructor(lifecycle: MemoryLifecycle) {
    this.#lifecycle = lifecycle;
  }

  /** Throws (writing nothing) when a delivery id is already stored or repeated: the memory twin of a primary-key violation. */
  assertInsertable(deliveries: readonly NewDelivery[]): void {
    // Most creates queue one delivery: no set of the ones seen for that.
    const seen = deliveries.length > 1 ? new Set<string>() : undefined;
    for (const delivery of deliveries) {
      if (this.#records.has(delivery.id) || seen?.has(delivery.id)) {
        throw new StorageError(`cannot queue delivery ${delivery.id}: a delivery with that id exists`);
      }
      seen?.add(delivery.id);
    }
  }

  /** Queues deliveries, each due at its `createdAt`. Call {@link assertInsertable} first. */
  insert(deliveries: readonly NewDelivery[]): void {
    for (const delivery of deliveries) {
      const record: DeliveryRecord = {
        message: copyMessage(delivery),
        sequence: this.#sequence++,
        status: 'pending',
        nextAttemptAt: delivery.createdAt,
        leaseOwner: undefined,
        leaseExpiresAt: undefined,
        attempts: [],
        countedAttempts: 0,
        finishedAt: undefined,
      };
      this.#records.set(delivery.id, record);
      this.#addPending(record);
    }
  }

  async enqueue(delivery: NewDelivery): Promise<void> {
    assertOpen(this.#lifecycle);
    this.assertInsertable([delivery]);
    this.insert([delivery]);
  }

  async claimDue(options: ClaimDueOptions): Promise<ClaimedDelivery[]> {
    assertOpen(this.#lifecycle);
    const { owner, now, leaseMs, limit } = options;
    const skip = options.skipEndpoints?.length ? new Set(options.skipEndpoints) : undefined;
    let due: DeliveryRecord[] = [];
    let endpointsWithDue = 0;
    for (const [endpointId, queue] of this.#pending) {
      if (skip?.has(endpointId)) continue;
      const before = due.length;
      let taken = 0;
      for (const record of queue) {
        if (taken >= limit || record.nextAttemptAt! > now) break;
        if (record.leaseExpiresAt !== undefined && record.leaseExpiresAt > now) continue;
        due.push(record);
        taken++;
      }
      if (due.length > before) endpointsWithDue++;
    }
    // Each endpoint's are in claim order; several endpoints' are merged into it.
    if (endpointsWithDue > 1) due = due.sort(claimOrder).slice(0, limit);
    const leaseExpiresAt = now + leaseMs;
    return due.map((record) => {
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
    record.leaseExpiresAt = undefined;
    if (outcome.status === 'interrupted') {
      // Still pending and due as before: its place in claim order does not change.
      record.attempts.push(storedAttempt(attempt, true));
      return true;
    }
    this.#removePending(record);
    record.attempts.push(storedAttempt(attempt, false));
    record.countedAttempts++;
    record.status = outcome.status;
    record.nextAttemptAt = outcome.status === 'pending' ? outcome.nextAttemptAt : undefined;
    record.finishedAt = outcome.status === 'pending' ? undefined : Math.round(attempt.at + attempt.durationMs);
    if (outcome.status === 'pending') this.#addPending(record);
    return true;
  }

  async release(ids: readonly string[], owner: string): Promise<void> {
    assertOpen(this.#lifecycle);
    for (const id of ids) {
      const record = this.#records.get(id);
      if (record?.leaseOwner !== owner) continue;
      record.leaseOwner = undefined;
      record.leaseExpiresAt = undefined;
    }
  }

  async nextDueAt(): Promise<number | undefined> {
    assertOpen(this.#lifecycle);
    let earliest: number | undefined;
    for (const queue of this.#pending.values()) {
      for (const record of queue) {
        // In due order: every later delivery is claimable at its due time or later.
        if (earliest !== undefined && record.nextAttemptAt! >= earliest) break;
        const at = Math.max(record.nextAttemptAt!, record.leaseExpiresAt ?? -Infinity);
        if (earliest === undefined || at < earliest) earliest = at;
      }
    }
    return earliest;
  }

  async waitingSince(now: number): Promise<ReadonlyMap<string, number>> {
    assertOpen(this.#lifecycle);
    const waiting = new Map<string, number>();
    for (const [endpointId, queue] of this.#pending) {
      // In due order: the first one not leased is the one waiting longest.
      for (const record of queue) {
        if (record.nextAttemptAt! > now) break;
        if (record.leaseExpiresAt !== undefined && record.leaseExpiresAt > now) continue;
        waiting.set(endpointId, record.nextAttemptAt!);
        break;
      }
    }
    return waiting;
  }

  async pendingStats(): Promise<PendingStats> {
    assertOpen(this.#lifecycle);
    // Kept in due order, not creation order (retries move back): one pass over the pending backlog only.
    let count = 0;
    let oldest = Infinity;
    for (const queue of this.#pending.values()) {
      count += queue.length;
      for (const record of queue) oldest = Math.min(oldest, record.message.createdAt);
    }
    return count === 0 ? { count: 0 } : { count, oldestCreatedAt: oldest };
  }

  async get(id: string): Promise<Delivery | undefined> {
    assertOpen(this.#lifecycle);
    const record = this.#records.get(id);
    return record && toDelivery(record);
  }

  async list(query: ListDeliveriesQuery = {}): Promise<Delivery[] | undefined> {
    assertOpen(this.#lifecycle);
    const cursor = query.after === undefined ? undefined : this.#records.get(query.after);
    if (query.after !== undefined && (!cursor || !inScope(cursor.message, query))) return undefined;
    const matching: DeliveryRecord[] = [];
    for (const record of this.#records.values()) {
      if (!matches(record, query)) continue;
      if (cursor && listOrder(cursor, record) >= 0) continue;
      matching.push(record);
    }
    matching.sort(listOrder);
    return matching.slice(0, Math.max(0, query.limit ?? DEFAULT_LIST_LIMIT)).map(toDelivery);
  }

  async endpointAttemptStats(endpointId: string, since: readonly number[]): Promise<EndpointAttemptStats> {
    assertOpen(this.#lifecycle);
    const windows = since.map(() => ({ succeeded: 0, failed: 0 }));
    const earliest = Math.min(...since);
    let last: DeliveryAttempt | undefined;
    for (const record of this.#records.values()) {
      if (record.message.endpointId !== endpointId) continue;
      for (const attempt of record.attempts) {
        if (!countsForStats(attempt) || attempt.at < earliest) continue;
        const succeeded = attempt.statusCode !== undefined && attempt.statusCode >= 200 && attempt.statusCode < 300;
        since.forEach((start, index) => {
          if (attempt.at >= start) windows[index]![succeeded ? 'succeeded' : 'failed']++;
        });
        if (!last || attempt.at > last.at) last = attempt;
      }
    }
    if (!last) return { windows };
    return { windows, lastAttempt: last.statusCode === undefined ? { at: last.at } : { at: last.at, statusCode: last.statusCode } };
  }

  async requeue(selector: RequeueSelector, now: number): Promise<number> {
    assertOpen(this.#lifecycle);
    const candidates = 'id' in selector ? [this.#records.get(selector.id)] : this.#records.values();
    let count = 0;
    for (const record of candidates) {
      if (!record || !selects(record, selector)) continue;
      this.#dueAgain(record, now);
      count++;
    }
    return count;
  }

  /** Ends every pending delivery to the endpoint as failed, with a last attempt saying why (the endpoint was deleted or disabled). */
  failPendingOf(endpointId: string, at: number, error: string): void {
    for (const record of [...(this.#pending.get(endpointId) ?? [])]) {
      this.#removePending(record);
      record.attempts.push({ at, durationMs: 0, error });
      record.countedAttempts++;
      record.status = 'failed';
      record.finishedAt = at;
      record.nextAttemptAt = undefined;
      record.leaseOwner = undefined;
      record.leaseExpiresAt = undefined;
    }
  }

  // A scan of every delivery: memory storage holds what a process can, and
  // this runs in the background a few times a minute at most.
  async prune(options: PruneDeliveriesOptions): Promise<number> {
    assertOpen(this.#lifecycle);
    const old: DeliveryRecord[] = [];
    for (const record of this.#records.values()) {
      if (record.status !== 'pending' && record.finishedAt! < options.olderThan) old.push(record);
    }
    old.sort((a, b) => a.finishedAt! - b.finishedAt! || a.sequence - b.sequence);
    const doomed = old.slice(0, Math.max(0, options.limit));
    for (const record of doomed) this.#records.delete(record.message.id);
    return doomed.length;
  }

  /**
   * Pending again, due `now`, at its new place in claim order. A lease it
   * holds stays (only a pending delivery has one: a finished one's ended
   * with its last attempt), as in the durable storages.
   */
  #dueAgain(record: DeliveryRecord, now: number): void {
    if (record.status === 'pending') this.#removePending(record);
    record.status = 'pending';
    record.nextAttemptAt = now;
    this.#addPending(record);
  }

  /** Inserts a pending record at its place in its endpoint's claim order (new deliveries usually go last). */
  #addPending(record: DeliveryRecord): void {
    const { endpointId } = record.message;
    let queue = this.#pending.get(endpointId);
    if (queue === undefined) this.#pending.set(endpointId, (queue = []));
    // A new delivery is due last (due now, queued last): checked first, before a search of a backlog.
    const last = queue.at(-1);
    if (last === undefined || claimOrder(last, record) < 0) {
      queue.push(record);
      return;
    }
    queue.splice(pendingIndex(queue, record), 0, record);
  }

  #removePending(record: DeliveryRecord): void {
    const { endpointId } = record.message;
    const queue = this.#pending.get(endpointId);
    if (queue === undefined) return;
    const index = pendingIndex(queue, record);
    if (queue[index] !== record) return;
    queue.splice(index, 1);
    if (queue.length === 0) this.#pending.delete(endpointId);
  }
}

/** First position in a queue in claim order not before `record` (its own position when it is there). */
function pendingIndex(queue: readonly DeliveryRecord[], record: DeliveryRecord): number {
  let low = 0;
  let high = queue.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (claimOrder(queue[middle]!, record) < 0) low = middle + 1;
    else high = middle;
  }
  return low;
}
