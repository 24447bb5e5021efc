import {
  ENDPOINT_DELETED_ERROR,
  ENDPOINT_DISABLED_ERROR,
  ENDPOINT_ID_PREFIX,
  PARKED_DISCARDED_ERROR,
  type ListDeliveriesQuery,
} from '@plant-store/core/adapter';
import type { CursorRow } from './delivery-rows.js';
import { BOUND_LIMIT } from './bound-limit.js';
import { joinedDueAt, joinedPlace, lineBefore, lineOfTarget, PARKED_OUT_OF_LINE, requeuedToBackOfLine } from './delivery-lines.js';

// SQL of the webhook outbox. Statuses stay literals where a partial index should apply (SQLite uses one only
// when the query's WHERE implies the index's).

/** Parameters: owner, lease end, now, then those of `ids`. */
const leaseSql = (ids: string) => `
  UPDATE webhook_deliveries SET lease_owner = ?, lease_expires_at = ?, updated_at = ?
  WHERE id IN (${ids})
  RETURNING id, tenant, endpoint_id, event_type, payload, created_at, ordering_key, traceparent, attempt_count, next_attempt_at, rowid`;

export const INSERT_DELIVERY = `
  INSERT INTO webhook_deliveries
    (id, tenant, endpoint_id, event_type, payload, status, attempt_count, next_attempt_at, created_at, updated_at, traceparent, test)
  VALUES (?, ?, ?, ?, ?, 'pending', 0, ?, ?, ?, ?, ?)`;

/** One with a line: the parameters of INSERT_DELIVERY, then the ordering key. Due at once when its line is free, else held behind it. */
export const INSERT_DELIVERY_IN_LINE = `
  INSERT INTO webhook_deliveries
    (id, tenant, endpoint_id, event_type, payload, status, attempt_count, next_attempt_at, created_at, updated_at, traceparent, test, ordering_key, line_seq)
  SELECT id, tenant, endpoint_id, event_type, payload, 'pending', 0, ${joinedDueAt('last', 'due')}, created_at, updated_at, traceparent, test,
    ordering_key, ${joinedPlace('ordering_key', 'last')}
  FROM (
    SELECT given.*, ${lineOfTarget('given.endpoint_id', 'given.ordering_key')} AS last
    FROM (SELECT ? AS id, ? AS tenant, ? AS endpoint_id, ? AS event_type, ? AS payload, ? AS due, ? AS created_at, ? AS updated_at,
            ? AS traceparent, ? AS test, ? AS ordering_key) AS given)`;

/** Parameters: owner, lease end, now (three times), limit. RETURNING does not keep the ORDER BY: callers sort. */
export const CLAIM_DUE = leaseSql(`
    SELECT id FROM webhook_deliveries
    WHERE status = 'pending' AND next_attempt_at <= ?
      AND (lease_expires_at IS NULL OR lease_expires_at <= ?)
    ORDER BY next_attempt_at, rowid
    LIMIT ${BOUND_LIMIT}`);

/**
 * The endpoints with pending deliveries (ending with a NULL row), one seek apart (a loose index scan): a claim that
 * passes over some endpoints reads the others one by one, instead of stepping over a slow receiver's whole backlog.
 * INDEXED BY, so an operator's ANALYZE never turns these to the (endpoint_id, status) index, which holds the history.
 */
const PENDING_ENDPOINTS_CTE = `
  WITH RECURSIVE endpoints(id) AS (
    SELECT min(endpoint_id) FROM webhook_deliveries INDEXED BY webhook_deliveries_endpoint_due WHERE status = 'pending'
    UNION ALL
    SELECT (
      SELECT min(endpoint_id) FROM webhook_deliveries INDEXED BY webhook_deliveries_endpoint_due
      WHERE status = 'pending' AND endpoint_id > endpoints.id)
    FROM endpoints WHERE endpoints.id IS NOT NULL)`;

export const PENDING_ENDPOINTS = `${PENDING_ENDPOINTS_CTE}
  SELECT id FROM endpoints WHERE id IS NOT NULL`;

export const DUE_FOR_ENDPOINT = `
  SELECT id, next_attempt_at, rowid FROM webhook_deliveries INDEXED BY webhook_deliveries_endpoint_due
  WHERE status = 'pending' AND endpoint_id = ? AND next_attempt_at <= ?
    AND (lease_expires_at IS NULL OR lease_expires_at <= ?)
  ORDER BY next_attempt_at, rowid
  LIMIT ${BOUND_LIMIT}`;

/** Each endpoint with deliveries due and not leased, and the earliest due time: one seek per endpoint. */
export const WAITING_SINCE = `${PENDING_ENDPOINTS_CTE}
  SELECT id, (
    SELECT next_attempt_at FROM webhook_deliveries INDEXED BY webhook_deliveries_endpoint_due
    WHERE status = 'pending' AND endpoint_id = endpoints.id AND next_attempt_at <= @now
      AND (lease_expires_at IS NULL OR lease_expires_at <= @now)
    ORDER BY next_attempt_at LIMIT 1) AS since
  FROM endpoints WHERE id IS NOT NULL`;

export const LEASE_DELIVERIES = leaseSql('SELECT value FROM json_each(?)');

/**
 * When the next pending delivery is due or its lease ends, whichever is later. Reads only the head of the due index:
 * the earliest delivery not leased past its due time, and the leased ones due before it, whose lease may end first.
 */
export const NEXT_DUE_AT = `
  WITH head AS (
    SELECT next_attempt_at AS at FROM webhook_deliveries
    WHERE status = 'pending' AND next_attempt_at IS NOT NULL AND (lease_expires_at IS NULL OR lease_expires_at <= next_attempt_at)
    ORDER BY next_attempt_at LIMIT 1)
  SELECT min(at) FROM (
    SELECT at FROM head
    UNION ALL
    SELECT lease_expires_at FROM webhook_deliveries
    WHERE status = 'pending' AND lease_expires_at > next_attempt_at
      AND next_attempt_at <= coalesce((SELECT at FROM head), ${Number.MAX_SAFE_INTEGER}))`;

export const PENDING_STATS = `SELECT count(*), min(created_at) FROM webhook_deliveries WHERE status = 'pending'`;

/** Ids as a JSON array: one parameter however many (no bound-variable limit). */
export const RELEASE_LEASES = `
  UPDATE webhook_deliveries SET lease_owner = NULL, lease_expires_at = NULL
  WHERE id IN (SELECT value FROM json_each(?)) AND lease_owner = ?`;

/** Returns the delivery's line (endpoint and key; a NULL key: none), whose next held delivery its end may release. */
export const APPLY_OUTCOME = `
  UPDATE webhook_deliveries
  SET status = ?, attempt_count = attempt_count + 1, next_attempt_at = ?,
      lease_owner = NULL, lease_expires_at = NULL, updated_at = ?
  WHERE id = ? AND lease_owner = ? AND status = 'pending'
  RETURNING endpoint_id, ordering_key`;

/**
 * Parked by its attempt (the endpoint was found disabled): out of its line, its ordering key kept, and the attempt leaves the
 * retry count alone. Returns its line, whose next held delivery it releases as an end does.
 */
export const APPLY_PARKED = `
  UPDATE webhook_deliveries
  SET ${PARKED_OUT_OF_LINE}, updated_at = ?
  WHERE id = ? AND lease_owner = ? AND status = 'pending'
  RETURNING endpoint_id, ordering_key`;

/** Interrupted: only the lease ends. */
export const APPLY_INTERRUPTED = `
  UPDATE webhook_deliveries SET lease_owner = NULL, lease_expires_at = NULL, updated_at = ?
  WHERE id = ? AND lease_owner = ? AND status = 'pending'`;

export const INSERT_ATTEMPT = `
  INSERT INTO webhook_attempts (delivery_id, attempt, at, duration_ms, status_code, error, interrupted, response)
  VALUES (?, (SELECT coalesce(max(attempt), 0) + 1 FROM webhook_attempts WHERE delivery_id = ?), ?, ?, ?, ?, ?, ?)`;

/** Finished deliveries, parked ones included (from when they were parked), by finish time. */
export const PRUNABLE = `
  SELECT id FROM webhook_deliveries
  WHERE status IN ('delivered', 'failed', 'parked') AND updated_at < ?
  ORDER BY updated_at LIMIT ${BOUND_LIMIT}`;

/** The foreign key deletes their attempts with them. */
export const DELETE_DELIVERIES = 'DELETE FROM webhook_deliveries WHERE id IN (SELECT value FROM json_each(?))';

/** Run with `exec`: a prepared statement's single step of this pragma frees one page. */
export const RECLAIM_STEP = 'PRAGMA incremental_vacuum(64)';

export const FREE_PAGES = 'PRAGMA freelist_count';

const DELIVERY_COLUMNS = 'id, tenant, endpoint_id, event_type, payload, created_at, ordering_key, traceparent, test, status, next_attempt_at';

export const SELECT_DELIVERY = `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE id = ?`;

export const ATTEMPTS_OF = `
  SELECT delivery_id, attempt, at, duration_ms, status_code, error, interrupted, response FROM webhook_attempts
  WHERE delivery_id IN (SELECT value FROM json_each(?)) ORDER BY delivery_id, attempt`;

/**
 * Each delivery of the ids (a JSON array: held ones, read in the same transaction) with the one it waits for (see lineBefore).
 * Found by id alone: a held condition here could lead the planner to read every held delivery instead.
 */
export const WAITING_BEHIND = `
  SELECT d.id, ${lineBefore('d')} AS behind FROM webhook_deliveries AS d WHERE d.id IN (SELECT value FROM json_each(?))`;

/** Deliveries to tenant endpoints (ids with the endpoint prefix), never those of operator subscriptions. */
const TENANT_ENDPOINT = `substr(endpoint_id, 1, ${ENDPOINT_ID_PREFIX.length}) = '${ENDPOINT_ID_PREFIX}'`;

/** A delivery's keyset cursor, when the tenant (NULL: none) may see it. */
export const LIST_CURSOR = `
  SELECT created_at, rowid FROM webhook_deliveries
  WHERE id = @id AND (@tenant IS NULL OR (tenant = @tenant AND ${TENANT_ENDPOINT}))`;

/** A listing's SQL and parameters. Only the filters given are in the SQL, so each shape gets a plan of its own. */
export function listDeliveries(query: ListDeliveriesQuery, cursor: CursorRow | undefined): { sql: string; parameters: unknown[] } {
  const conditions: string[] = [];
  const parameters: unknown[] = [];
  const where = (condition: string, ...values: unknown[]) => {
    conditions.push(condition);
    parameters.push(...values);
  };
  if (query.tenant !== undefined) where(`tenant = ? AND ${TENANT_ENDPOINT}`, query.tenant);
  if (query.endpointId !== undefined) where('endpoint_id = ?', query.endpointId);
  if (query.status !== undefined) where('status = ?', query.status);
  if (query.eventType !== undefined) where('event_type = ?', query.eventType);
  if (query.since !== undefined) where('created_at >= ?', Math.ceil(query.since));
  if (query.until !== undefined) where('created_at < ?', Math.ceil(query.until));
  if (cursor) where('(created_at, rowid) < (?, ?)', cursor.created_at, cursor.rowid);
  parameters.push(Math.max(0, query.limit ?? 100));
  const filter = conditions.length === 0 ? '' : ` WHERE ${conditions.join(' AND ')}`;
  return { sql: `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries${filter} ORDER BY created_at DESC, rowid DESC LIMIT ${BOUND_LIMIT}`, parameters };
}

/** A resend of a pending delivery: due at @now, unless held (it keeps its place in its line); a lease in flight is left to end by itself. */
export const RESEND_PENDING = `
  UPDATE webhook_deliveries SET next_attempt_at = CASE WHEN next_attempt_at IS NOT NULL THEN @now END, updated_at = @now
  WHERE id = @id AND status = 'pending'`;

/**
 * A delivered or parked (only when @any is 1) or failed delivery back to pending, due at @now, at the back of its line: held when
 * another of the line is pending (see requeuedToBackOfLine).
 */
export const REQUEUE_ENDED = requeuedToBackOfLine(`status = 'failed' OR (@any AND status IN ('delivered', 'parked'))`);

/** A recovery's deliveries, in creation order: each is requeued on its own (REQUEUE_ENDED), so a line's are queued in that order. */
export const FAILED_SINCE = `
  SELECT id FROM webhook_deliveries WHERE endpoint_id = ? AND status = 'failed' AND created_at >= ? ORDER BY created_at, rowid`;

/** Through the deliveries updated since the earliest window start (every attempt moves `updated_at`), on their index. */
const ENDPOINT_ATTEMPTS = `
  SELECT a.at, coalesce(a.status_code BETWEEN 200 AND 299, 0) AS ok, a.status_code
  FROM webhook_attempts AS a JOIN webhook_deliveries AS d ON d.id = a.delivery_id
  WHERE d.endpoint_id = @endpoint AND d.attempt_count > 0 AND d.updated_at >= @earliest AND a.at >= @earliest AND a.interrupted = 0
    AND coalesce(a.error, '') NOT IN ('${ENDPOINT_DELETED_ERROR}', '${ENDPOINT_DISABLED_ERROR}', '${PARKED_DISCARDED_ERROR}')`;

/** A raw row: succeeded and failed counts per window, then the last attempt's time and status (SQLite takes a bare column from the max() row). */
export const endpointStatsSql = (windows: number) => `
  WITH attempts AS (${ENDPOINT_ATTEMPTS})
  SELECT ${Array.from({ length: windows }, (_, index) => `sum(CASE WHEN at >= @w${index} THEN ok ELSE 0 END), sum(CASE WHEN at >= @w${index} THEN 1 - ok ELSE 0 END)`).join(', ')},
    max(at), status_code
  FROM attempts`;
