import type { ColumnType } from 'kysely';
import type { DeliveryStatus } from '@plant-store/core';

/*
 * Row types of the SQLite schema (see migrations/). The connection reads
 * every INTEGER as a bigint (safe integers), so plant ids stay exact; other
 * integer columns are written as numbers and converted back on read.
 */

/** An INTEGER column other than a plant id: read as bigint, written as number. */
type IntegerColumn = ColumnType<bigint, number | bigint, number | bigint>;
type NullableIntegerColumn = ColumnType<bigint | null, number | bigint | null, number | bigint | null>;

export interface PlantsTable {
  tenant: string;
  /** The plant id, the whole int64 range. */
  id: bigint;
  name: string;
  /** NULL when the plant has no tag. */
  tag: string | null;
}

export interface WebhookDeliveriesTable {
  id: string;
  tenant: string;
  /** Id of the subscription (endpoint) the delivery goes to; a URL before migration 002. */
  endpoint_id: string;
  event_type: string;
  payload: string;
  status: DeliveryStatus;
  /** Attempts that count toward the retry schedule (interrupted ones do not). */
  attempt_count: IntegerColumn;
  /** Due time while pending; NULL once delivered or failed. */
  next_attempt_at: NullableIntegerColumn;
  lease_owner: string | null;
  lease_expires_at: NullableIntegerColumn;
  created_at: IntegerColumn;
  updated_at: IntegerColumn;
  /** 1 for a delivery queued by "send a test event", else 0 (migration 005). */
  test: ColumnType<bigint, number | undefined, number>;
  /** W3C `traceparent` of the write that queued it; NULL when that write was not traced (and before migration 006). */
  traceparent: string | null;
}

export interface WebhookAttemptsTable {
  delivery_id: string;
  /** 1 for the first attempt; interrupted attempts are numbered too. */
  attempt: IntegerColumn;
  at: IntegerColumn;
  duration_ms: IntegerColumn;
  status_code: NullableIntegerColumn;
  error: string | null;
  /** 1 when a shutdown cut the attempt short (it does not count toward the retry schedule), else 0. */
  interrupted: IntegerColumn;
  /** The start of the receiver's answer (at most 1 KiB); NULL when none (migration 005). */
  response: string | null;
}

export interface Database {
  plants: PlantsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
}
