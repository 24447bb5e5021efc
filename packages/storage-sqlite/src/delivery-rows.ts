import type { Delivery, DeliveryAttempt, DeliveryStatus } from '@plant-store/core';
import type { ClaimedDelivery, NewDelivery } from '@plant-store/core/adapter';

// Rows of the outbox's statements. The connection reads every INTEGER as a bigint; they are converted back here.

interface MessageRow {
  id: string;
  tenant: string;
  endpoint_id: string;
  event_type: string;
  payload: string;
  created_at: bigint;
  ordering_key: string | null;
  traceparent: string | null;
}

export interface ClaimRow extends MessageRow {
  attempt_count: bigint;
  next_attempt_at: bigint;
  rowid: bigint;
}

export interface DeliveryRow extends MessageRow {
  test: bigint;
  status: DeliveryStatus;
  next_attempt_at: bigint | null;
}

export interface AttemptRow {
  delivery_id: string;
  attempt: bigint;
  at: bigint;
  duration_ms: bigint;
  status_code: bigint | null;
  error: string | null;
  interrupted: bigint;
  response: string | null;
}

export interface CursorRow {
  created_at: bigint;
  rowid: bigint;
}

function toNewDelivery(row: MessageRow): NewDelivery {
  return {
    id: row.id,
    tenant: row.tenant,
    endpointId: row.endpoint_id,
    eventType: row.event_type,
    payload: row.payload,
    createdAt: Number(row.created_at),
    ...(row.ordering_key !== null && { orderingKey: row.ordering_key }),
    ...(row.traceparent === null ? {} : { traceparent: row.traceparent }),
  };
}

export function toClaimedDelivery(row: ClaimRow, leaseExpiresAt: number): ClaimedDelivery {
  return { ...toNewDelivery(row), attemptCount: Number(row.attempt_count), leaseExpiresAt };
}

export interface DueRow {
  id: string;
  next_attempt_at: bigint;
  rowid: bigint;
}

/** Earliest due first, then oldest row, as the claim's ORDER BY (RETURNING does not keep it). */
export const claimOrder = (a: DueRow, b: DueRow) => Number(a.next_attempt_at - b.next_attempt_at) || Number(a.rowid - b.rowid);

function toAttempt(row: AttemptRow): DeliveryAttempt {
  return {
    at: Number(row.at),
    durationMs: Number(row.duration_ms),
    ...(row.status_code !== null && { statusCode: Number(row.status_code) }),
    ...(row.error !== null && { error: row.error }),
    ...(row.interrupted !== 0n && { interrupted: true as const }),
    ...(row.response !== null && { response: row.response }),
  };
}

export interface WaitingRow {
  id: string;
  behind: string | null;
}

/** Held: pending in a line without a due time, behind an earlier message of its line. */
export const isHeld = (row: DeliveryRow) => row.status === 'pending' && row.next_attempt_at === null && row.ordering_key !== null;

function toDelivery(row: DeliveryRow, attempts: DeliveryAttempt[], waitingBehind: string | undefined): Delivery {
  return {
    ...toNewDelivery(row),
    ...(row.test === 1n ? { test: true as const } : {}),
    status: row.status,
    // Every attempt, interrupted ones included (attempt_count leaves those out: it drives the retry schedule).
    attemptCount: attempts.length,
    ...(row.status === 'pending' && row.next_attempt_at !== null ? { nextAttemptAt: Number(row.next_attempt_at) } : {}),
    ...(waitingBehind !== undefined && { waitingBehind }),
    attempts,
  };
}

/** The rows as deliveries, each with its attempts out of `attempts` (all of theirs, in attempt order) and what it waits for out of `waiting`. */
export function toDeliveries(rows: readonly DeliveryRow[], attempts: readonly AttemptRow[], waiting: readonly WaitingRow[]): Delivery[] {
  const byDelivery = new Map<string, DeliveryAttempt[]>();
  for (const attempt of attempts) byDelivery.set(attempt.delivery_id, [...(byDelivery.get(attempt.delivery_id) ?? []), toAttempt(attempt)]);
  const behind = new Map(waiting.map((row) => [row.id, row.behind ?? undefined]));
  return rows.map((row) => toDelivery(row, byDelivery.get(row.id) ?? [], behind.get(row.id)));
}
