import type { DeliveryStatus } from '@plant-store/core';

/*
 * Rows as the statements of this adapter return them (see migrations/ for
 * the tables). int8 columns arrive as bigint (see postgres-connection.ts):
 * plant ids stay exact; times are converted to numbers when mapped.
 */

/** The columns of a delivery that make up its message. */
export interface MessageRow {
  readonly id: string;
  readonly tenant: string;
  readonly endpoint_id: string;
  readonly event_type: string;
  readonly payload: string;
  readonly created_at: bigint;
  /** W3C `traceparent` of the write that queued it; NULL when that write was not traced. */
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
  /** Queued by "send a test event" (migration 005). */
  readonly test: boolean;
  readonly attempt_count: number;
  readonly next_attempt_at: bigint | null;
  readonly attempts: readonly AttemptJson[];
}

/** One attempt as `json_strip_nulls(json_build_object(...))` returns it: absent keys were NULL. */
export interface AttemptJson {
  readonly at: number;
  readonly durationMs: number;
  readonly statusCode?: number;
  readonly error?: string;
  readonly interrupted?: true;
  readonly response?: string;
}
