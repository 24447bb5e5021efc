import type { Delivery } from '@plant-store/core';
import type { ClaimedDelivery, NewDelivery } from '@plant-store/core/adapter';
import type { ClaimRow, DeliveryRow, MessageRow } from './schema.js';

/** Times and durations are whole milliseconds (bigint columns); durations measured with sub-ms clocks are rounded. */
export const wholeMs = (value: number) => Math.round(value);

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
    attempts: row.attempts,
  };
}
