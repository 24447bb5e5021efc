import type { Delivery, DeliveryAttempt, DeliveryStatus } from '@plant-store/core';
import type { ClaimedDelivery, NewDelivery } from '@plant-store/core/adapter';

/*
 * Rows of the outbox's statements (see outbox-queries.ts) and their mapping
 * to the port's types. The connection reads every INTEGER as a bigint (safe
 * integers); integer columns other than plant ids are converted back here.
 */

/** Times and durations are whole milliseconds (INTEGER columns); durations measured with sub-ms clocks are rounded. */
export const wholeMs = (value: number) => Math.round(value);

/** The columns every delivery row has, as the port's fields. */
interface MessageRow {
  id: string;
  tenant: string;
  /** Id of the subscription (endpoint) the delivery goes to. */
  endpoint_id: string;
  event_type: string;
  payload: string;
  created_at: bigint;
  /** W3C `traceparent` of the write that queued it; NULL when that write was not traced. */
  traceparent: string | null;
}

/** A row the claim returns. */
export interface ClaimRow extends MessageRow {
  /** Attempts that count toward the retry schedule (interrupted ones do not). */
  attempt_count: bigint;
  next_attempt_at: bigint;
  rowid: bigint;
}

/** A delivery row as the reads select it. */
export interface DeliveryRow extends MessageRow {
  /** 1 for a delivery queued by "send a test event", else 0. */
  test: bigint;
  status: DeliveryStatus;
  /** Due time while pending; NULL once delivered or failed. */
  next_attempt_at: bigint | null;
}

/** A webhook_attempts row. */
export interface AttemptRow {
  delivery_id: string;
  /** 1 for the first attempt; interrupted attempts are numbered too. */
  attempt: bigint;
  at: bigint;
  duration_ms: bigint;
  status_code: bigint | null;
  error: string | null;
  /** 1 when a shutdown cut the attempt short (it does not count toward the retry schedule), else 0. */
  interrupted: bigint;
  /** The start of the receiver's answer (at most 1 KiB); NULL when none. */
  response: string | null;
}

/** The listing position of a delivery (a keyset cursor). */
export interface CursorRow {
  created_at: bigint;
  rowid: bigint;
}

export function toNewDelivery(row: MessageRow): NewDelivery {
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

export function toClaimedDelivery(row: ClaimRow, leaseExpiresAt: number): ClaimedDelivery {
  return { ...toNewDelivery(row), attemptCount: Number(row.attempt_count), leaseExpiresAt };
}

/** A claimable delivery's place in claim order. */
export interface DueRow {
  id: string;
  next_attempt_at: bigint;
  rowid: bigint;
}

/** Earliest due first, then oldest row, as the claim's ORDER BY (RETURNING does not keep it). */
export const claimOrder = (a: DueRow, b: DueRow) =>
  a.next_attempt_at < b.next_attempt_at ? -1 : a.next_attempt_at > b.next_attempt_at ? 1 : a.rowid < b.rowid ? -1 : a.rowid > b.rowid ? 1 : 0;

function toAttempt(row: AttemptRow): DeliveryAttempt {
  const attempt: { -readonly [K in keyof DeliveryAttempt]: DeliveryAttempt[K] } = { at: Number(row.at), durationMs: Number(row.duration_ms) };
  if (row.status_code !== null) attempt.statusCode = Number(row.status_code);
  if (row.error !== null) attempt.error = row.error;
  if (row.interrupted !== 0n) attempt.interrupted = true;
  if (row.response !== null) attempt.response = row.response;
  return attempt;
}

function toDelivery(row: DeliveryRow, attempts: DeliveryAttempt[]): Delivery {
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

/** The rows as deliveries, each with its attempts out of `attempts` (the attempts of all of them, in attempt order). */
export function toDeliveries(rows: readonly DeliveryRow[], attempts: readonly AttemptRow[]): Delivery[] {
  const byDelivery = new Map<string, DeliveryAttempt[]>();
  for (const attempt of attempts) {
    let list = byDelivery.get(attempt.delivery_id);
    if (!list) byDelivery.set(attempt.delivery_id, (list = []));
    list.push(toAttempt(attempt));
  }
  return rows.map((row) => toDelivery(row, byDelivery.get(row.id) ?? []));
}
