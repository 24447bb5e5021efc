import type { DeliveryAttempt, DeliveryStatus } from '@plant-store/core';

// Rows as the statements of this adapter return them. int8 columns arrive as bigint: plant ids stay exact; times
// are converted to numbers when mapped.

/** The columns of a delivery that make up its message. */
export interface MessageRow {
  readonly id: string;
  readonly tenant: string;
  readonly endpoint_id: string;
  readonly event_type: string;
  readonly payload: string;
  readonly created_at: bigint;
  readonly traceparent: string | null;
}

export interface ClaimRow extends MessageRow {
  readonly attempt_count: number;
  readonly next_attempt_at: bigint;
  /** Insertion order, the tie-break of equal due times. */
  readonly seq: bigint;
}

/** A delivery with its attempt log, aggregated as JSON by the statement (see outbox-queries.ts). */
export interface DeliveryRow extends MessageRow {
  readonly status: DeliveryStatus;
  readonly test: boolean;
  readonly attempt_count: number;
  readonly next_attempt_at: bigint | null;
  /** Built by `json_strip_nulls(json_build_object(...))`: keys that were NULL are absent. */
  readonly attempts: readonly DeliveryAttempt[];
}
