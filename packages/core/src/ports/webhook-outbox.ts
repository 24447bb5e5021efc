/**
 * Life cycle of a delivery: pending until delivered, or failed when retries are exhausted (or the receiver said 410); parked while its
 * endpoint is disabled (kept for it: never due, never claimed, in no line, but keeping its `orderingKey`, so that a replay on enable
 * puts it at the back of its line). Parked is finished for retention: pruned like delivered and failed ones, from when it was parked.
 */
export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'parked';

/** A webhook message to one subscriber, written in the same transaction as the plant. */
export interface NewDelivery {
  /** Unique id; sent as `webhook-id` on every attempt (receivers dedupe on it). */
  readonly id: string;
  /** Tenant of the plant that caused it. */
  readonly tenant: string;
  /** Endpoint (subscription) id; its URL and secret are looked up at each attempt, so a change applies to queued messages too. */
  readonly endpointId: string;
  readonly eventType: string;
  /** Exact request body (JSON text); signed and sent byte for byte on every attempt. */
  readonly payload: string;
  /** When it was queued, epoch milliseconds. Also its first due time. */
  readonly createdAt: number;
  /** Queued by "send a test event" (an example payload, not a real event); absent otherwise. */
  readonly test?: true;
  /**
   * Its place in a line (the plant id, for an endpoint with `ordering: 'plant'`); absent for most. While an earlier-queued
   * delivery with the same endpoint and key is pending, it is held: pending, without a due time, never claimed. When the
   * one before it ends (delivered or failed, through `recordAttempt`), the first held one becomes due at that time.
   */
  readonly orderingKey?: string;
  /** The W3C `traceparent` of the write that queued it (absent when untraced), kept as given and handed back by every read, `claimDue` above all. */
  readonly traceparent?: string;
}

export interface DeliveryAttempt {
  /** When the attempt started, epoch milliseconds. */
  readonly at: number;
  /** Whole milliseconds; adapters round sub-millisecond timings. */
  readonly durationMs: number;
  /** HTTP status when the receiver answered. */
  readonly statusCode?: number;
  /** Why it failed when there was no usable answer (timeout, refused, …) or why a status counted as failure. Stored as `storableText` makes it. */
  readonly error?: string;
  /** Cut short by a shutdown; it did not count toward the retry schedule. Absent otherwise. */
  readonly interrupted?: true;
  /** The start of the receiver's answer body (at most 1 KiB of UTF-8), when it sent one. Stored as `storableText` makes it (U+0000 shown as `\u0000`), on every adapter. */
  readonly response?: string;
}

/** A delivery with its state and full attempt log. */
export interface Delivery extends NewDelivery {
  readonly status: DeliveryStatus;
  /** Number of attempts made so far, interrupted ones included (= `attempts.length`). */
  readonly attemptCount: number;
  /** When the next attempt is due, epoch ms; only while pending, and absent while held behind an earlier delivery in its line (see `orderingKey`). */
  readonly nextAttemptAt?: number;
  /**
   * While held (pending without `nextAttemptAt`, in a line): the id of the pending delivery just before it in its line, the one it waits
   * for; absent otherwise. Read with the delivery (one index seek per held delivery, so a listing stays cheap).
   */
  readonly waitingBehind?: string;
  /** Oldest first. */
  readonly attempts: readonly DeliveryAttempt[];
}

/** A pending delivery leased to one dispatcher. */
export interface ClaimedDelivery extends NewDelivery {
  /** Attempts made before this one that count toward the retry schedule: interrupted ones do not. */
  readonly attemptCount: number;
  /** The lease ends at this time (epoch ms); after it, others may claim the delivery. */
  readonly leaseExpiresAt: number;
}

export interface ClaimDueOptions {
  /** Identity of the claiming dispatcher (unique per process and store). */
  readonly owner: string;
  readonly now: number;
  readonly leaseMs: number;
  /** Maximum number of deliveries to claim; at least 1. */
  readonly limit: number;
  /** Endpoint ids not to claim for (they are at their concurrency cap). @default none */
  readonly skipEndpoints?: readonly string[];
}

export type AttemptOutcome =
  | { readonly status: 'delivered' }
  | { readonly status: 'pending'; readonly nextAttemptAt: number }
  | { readonly status: 'failed' }
  /** Cut short by a shutdown: stays pending and due as before (so at once), and does not count toward the retry schedule. */
  | { readonly status: 'interrupted' }
  /**
   * The endpoint was found disabled at the attempt: the attempt is logged (without counting toward the retry schedule, as an
   * interrupted one) and the delivery is parked (see `DeliveryStatus`); the next one of its line is released as after an end.
   */
  | { readonly status: 'parked' };

/** What a shared rate budget answered for one attempt (see `WebhookOutbox.takeRateBudget`). */
export interface RateBudgetAnswer {
  /** The attempt may start: it was counted. */
  readonly admitted: boolean;
  /** When the endpoint's current window ends, epoch ms (its budget is whole again then). */
  readonly windowEnd: number;
  /** No further attempt fits before `windowEnd` (this one, if admitted, took the last place). */
  readonly exhausted: boolean;
}

/** The pending backlog at one moment, for monitoring. */
export interface PendingStats {
  /** Deliveries pending (leased or not). */
  readonly count: number;
  /** `createdAt` of the oldest pending delivery (a re-queued one keeps its original time); absent when none is pending. */
  readonly oldestCreatedAt?: number;
}

/** Which deliveries `WebhookOutbox.list` returns: those matching every filter given (none: every delivery). */
export interface ListDeliveriesQuery {
  /** Only this tenant's deliveries to its own endpoints (`ep_…`), never those to operator subscriptions: what a tenant may see. @default every delivery */
  readonly tenant?: string;
  /** Only deliveries to this endpoint or subscription id. @default all */
  readonly endpointId?: string;
  /** Only deliveries in this state. @default all */
  readonly status?: DeliveryStatus;
  /** Only deliveries of this event type. @default all */
  readonly eventType?: string;
  /** Only deliveries created at or after this time (epoch ms). @default no lower bound */
  readonly since?: number;
  /** Only deliveries created before this time (epoch ms). @default no upper bound */
  readonly until?: number;
  /**
   * Keyset cursor: only deliveries listed after this one. It must be a delivery the query's `tenant` may see (any without one), else `list`
   * resolves with `undefined`; the other filters do not apply to it, so a delivery whose state changed still marks its place. @default from the newest
   */
  readonly after?: string;
  /** Most deliveries returned; none when less than 1. @default 100 */
  readonly limit?: number;
}

/** Which deliveries `WebhookOutbox.requeue` puts back to pending. */
export type RequeueSelector =
  /**
   * One delivery: `from: 'failed'` only when it failed; `from: 'any'` whatever its state (a resend: a lease in flight is left to end by itself,
   * and a pending one keeps its place in its line).
   */
  | { readonly id: string; readonly from: 'failed' | 'any' }
  /** Every failed delivery to this endpoint or subscription id created at or after `since` (epoch ms): an endpoint's recovery. */
  | { readonly endpointId: string; readonly since: number };

/** What the attempts to one endpoint came to over a few time windows, for its health. */
export interface EndpointAttemptStats {
  /** One per `since` asked for, in the same order. */
  readonly windows: readonly { readonly succeeded: number; readonly failed: number }[];
  /** The most recent attempt at or after the earliest `since`; absent when none. */
  readonly lastAttempt?: { readonly at: number; readonly statusCode?: number };
}

export interface PruneDeliveriesOptions {
  /** Epoch ms: only deliveries that finished (delivered or failed) before this time. */
  readonly olderThan: number;
  /** Most deliveries deleted by this call; at least 1. */
  readonly limit: number;
}

export interface ReclaimSpaceOptions {
  /** Ends the reclaim early when aborted (the store is closing). @default never */
  readonly signal?: AbortSignal | undefined;
}

/**
 * Pending messages that can never become due: held (no due time) in a line none of whose messages is due or in flight, or
 * without a due time in no line at all. Only a bug leaves them so; `WebhookOutbox.stuckLines` finds them for operators.
 */
export interface StuckLine {
  readonly endpointId: string;
  /** The tenant of its messages (an endpoint's lines are all its tenant's). */
  readonly tenant: string;
  /** The line's key (the plant id); absent for messages in no line. */
  readonly orderingKey?: string;
  /** How many of its messages wait (pending without a due time). */
  readonly waiting: number;
  /** `createdAt` of the oldest of them. */
  readonly oldestCreatedAt: number;
}

/** Which stuck line `WebhookOutbox.releaseStuckLine` releases: as `stuckLines` named it. */
export type StuckLineKey = Pick<StuckLine, 'endpointId' | 'orderingKey'>;

/**
 * The transactional outbox of webhook deliveries (rows are added by `PlantRepository.create`). Claims are leases: a delivery held by one
 * owner is invisible to other claimers until recorded, released or expired, also across processes sharing the storage.
 */
export interface WebhookOutbox {
  /** Leases up to `limit` pending deliveries due at `now` (next attempt ≤ now, no live lease), earliest due first; atomic, so concurrent claimers never get the same delivery. `[]` when none. */
  claimDue(options: ClaimDueOptions): Promise<ClaimedDelivery[]>;
  /** Appends the attempt to the log (marked `interrupted` for that outcome), applies the outcome and clears the lease, atomically and only while `owner` holds the lease; returns `false` (writing nothing) otherwise. */
  recordAttempt(id: string, owner: string, attempt: DeliveryAttempt, outcome: AttemptOutcome): Promise<boolean>;
  /** Ends `owner`'s leases on these deliveries without recording an attempt; others are left alone. */
  release(ids: readonly string[], owner: string): Promise<void>;
  /** Earliest time a pending delivery becomes claimable (its due time, or its lease end if later), or `undefined` when none is pending. */
  nextDueAt(): Promise<number | undefined>;
  /** For each endpoint with deliveries due at `now` that no dispatcher holds (waiting for an attempt slot), the earliest of their due times; an empty map when none waits. One index read per endpoint with pending deliveries, however long its backlog: meant for each metrics scrape. */
  waitingSince(now: number): Promise<ReadonlyMap<string, number>>;
  /** How many deliveries are pending and when the oldest was queued, from one consistent read; `{ count: 0 }` when none. Meant for each metrics scrape, so it must stay cheap with a large delivered history (an indexed read, no full scan). */
  pendingStats(): Promise<PendingStats>;
  /** One delivery with its attempts, or `undefined`. */
  get(id: string): Promise<Delivery | undefined>;
  /** Up to `limit` deliveries of the query, newest first (creation time, then insertion order), with their attempts; `undefined` only when `after` is not a delivery the query may list (see `ListDeliveriesQuery.after`). */
  list(query?: ListDeliveriesQuery): Promise<Delivery[] | undefined>;
  /**
   * Puts the selected deliveries back to pending, due at `now`, same ids, keeping their attempt logs, atomically; one with an `orderingKey` joins
   * the back of its line (held while another delivery of the line is pending; a recovery queues them in creation order).
   * Resolves with how many (0 when none is selected: an unknown id, or one not failed under `from: 'failed'`).
   */
  requeue(selector: RequeueSelector, now: number): Promise<number>;
  /**
   * Counts the attempts to `endpointId` made at or after each of `since` (one window each): succeeded when the receiver answered 2xx, failed
   * otherwise; interrupted ones and those a delete or disable wrote are left out. One consistent indexed read, also for a few dozen windows.
   */
  endpointAttemptStats(endpointId: string, since: readonly number[]): Promise<EndpointAttemptStats>;
  /** Queues one delivery on its own (not with a plant write: a test event), pending and due at its `createdAt` (held when its line is busy); rejects with a `StorageError` when the id exists. */
  enqueue(delivery: NewDelivery): Promise<void>;
  /** Deletes up to `limit` delivered, failed or parked deliveries (never pending ones) whose finish time (end of the last attempt, or when they were failed or parked without one) is before `olderThan`, in no particular order, with their attempts, in one transaction; resolves with how many. Finish time, not creation time, so a delivery that only just failed after days of retries is kept a full retention. May resolve with 0 while another process sharing the storage prunes (one at a time), so 0 means "nothing to do now". */
  prune(options: PruneDeliveriesOptions): Promise<number>;
  /** Up to `limit` stuck lines (see `StuckLine`), oldest waiting message first, from one consistent read; `[]` when none. Meant for an operator's check, not a hot path. */
  stuckLines(limit: number): Promise<StuckLine[]>;
  /**
   * Makes a stuck line's first waiting message (by place in the line) due at `now`, or every waiting message of an endpoint's
   * messages in no line, atomically and only while it is still stuck (nothing of it due or in flight); resolves with how many
   * became due, 0 when it was not stuck (anymore). Safe alongside every other member and from several processes: never makes a second message of a line due.
   */
  releaseStuckLine(line: StuckLineKey, now: number): Promise<number>;
  /**
   * Optional: makes the space of pruned deliveries (and other deleted rows) reusable or hands it back to the file system, the upkeep that
   * cannot run inside a prune's transaction. Called after a pruning run that deleted deliveries; safe at any time, alongside every other
   * member and from several processes (work another is doing is skipped, not waited for). Never holds a lock that writes or claims wait on.
   * Resolves early once `signal` is aborted, leaving the rest to the next call. Rejects with a `StorageError` when it fails (nothing is lost).
   * Adapters whose `prune` leaves nothing to reclaim leave it out.
   */
  reclaimSpace?(options?: ReclaimSpaceOptions): Promise<void>;
  /**
   * Optional: counts one attempt to `endpointId` against a budget of `rateLimit` per one-second window (aligned to whole seconds of `now`) shared
   * by every process on this storage; atomic. Not admitted counts nothing. Adapters serving one process leave it out (the budget is then in memory).
   */
  takeRateBudget?(endpointId: string, rateLimit: number, now: number): Promise<RateBudgetAnswer>;
  /**
   * Optional: calls `listener` (no arguments; what it throws is ignored) soon after another process or store on this storage may have queued
   * deliveries, and maybe spuriously (after a reconnect, say), so it must be cheap and idempotent. Returns an idempotent unsubscribe.
   * Adapters without a cross-process signal leave it out.
   */
  watch?(listener: () => void): () => void;
}
