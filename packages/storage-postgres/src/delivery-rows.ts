import type { Delivery, DeliveryAttempt, DeliveryStatus } from '@plant-store/core';
import type { ClaimedDelivery, NewDelivery } from '@plant-store/core/adapter';

// int8 columns arrive as bigint; times are converted to numbers here.

interface MessageRow {
  readonly id: string;
  readonly tenant: string;
  readonly endpoint_id: string;
  readonly event_type: string;
  readonly payload: string;
  readonly created_at: bigint;
  readonly ordering_key: string | null;
  readonly traceparent: string | null;
}

export interface ClaimRow extends MessageRow {
  readonly attempt_count: number;
  readonly next_attempt_at: bigint;
  /** Insertion order, the tie-break of equal due times. */
  readonly seq: bigint;
}

/** A delivery with its attempt log, aggregated as JSON by the statement (`json_strip_nulls`: NULL keys are absent). */
export interface DeliveryRow extends MessageRow {
  readonly status: DeliveryStatus;
  readonly test: boolean;
  readonly attempt_count: number;
  readonly next_attempt_at: bigint | null;
  readonly waiting_behind: string | null;
  readonly attempts: readonly DeliveryAttempt[];
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
  return { ...toNewDelivery(row), attemptCount: row.attempt_count, leaseExpiresAt };
}

/** Earliest due first, then oldest row: the claim's ORDER BY (RETURNING does not keep it). */
export const claimOrder = (a: ClaimRow, b: ClaimRow) => Number(a.next_attempt_at - b.next_attempt_at) || Number(a.seq - b.seq);

export function toDelivery(row: DeliveryRow): Delivery {
  return {
    ...toNewDelivery(row),
    ...(row.test && { test: true as const }),
    status: row.status,
    // Every attempt, interrupted ones included (attempt_count leaves those out: it drives the retry schedule).
    attemptCount: row.attempts.length,
    ...(row.status === 'pending' && row.next_attempt_at !== null ? { nextAttemptAt: Number(row.next_attempt_at) } : {}),
    ...(row.waiting_behind !== null && { waitingBehind: row.waiting_behind }),
    attempts: row.attempts,
  };
}
