import type { Tables } from './tables.js';

/*
 * SQL of the webhook outbox, built once per storage. Every statement is
 * atomic on its own, so no call holds a connection between round trips.
 * `status = 'pending'` stays a literal where the partial index on due
 * deliveries should apply.
 */

/**
 * Parameters: owner, lease end, now, limit, endpoints to skip (text[]).
 * `FOR UPDATE SKIP LOCKED` makes concurrent claimers (on any instance) pass
 * over rows another one is claiming instead of waiting for it; a row whose
 * lease was taken meanwhile is re-checked against the WHERE on its newest
 * version and dropped, so one delivery never goes to two claimers.
 * RETURNING does not keep the ORDER BY: callers sort by (next_attempt_at, seq).
 */
export const claimDueSql = (t: Tables) => `
  WITH due AS (
    SELECT id FROM ${t.deliveries}
    WHERE status = 'pending' AND next_attempt_at <= $3
      AND (lease_expires_at IS NULL OR lease_expires_at <= $3)
      AND endpoint_id <> ALL ($5::text[])
    ORDER BY next_attempt_at, seq
    LIMIT $4
    FOR UPDATE SKIP LOCKED
  )
  UPDATE ${t.deliveries} AS d SET lease_owner = $1, lease_expires_at = $2, updated_at = $3
  FROM due WHERE d.id = due.id
  RETURNING d.id, d.tenant, d.endpoint_id, d.event_type, d.payload, d.created_at, d.traceparent, d.attempt_count, d.next_attempt_at, d.seq`;

/**
 * Records a batch of attempts, one per delivery, all parameters arrays of
 * equal length: ids, owners, new statuses, next attempts (NULL unless
 * pending), updated at, attempt starts, durations, status codes, errors,
 * interrupted. Each applies its outcome and appends its attempt only while
 * its owner holds the lease; returns the ids recorded. An interrupted attempt
 * (a shutdown cut it short) only ends the lease: status, due time and the
 * counted attempts stay. Attempt rows are numbered after the last one,
 * interrupted included. Ids must be distinct within a batch.
 */
export const recordAttemptsSql = (t: Tables) => `
  WITH input AS (
    SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::bigint[], $6::bigint[], $7::bigint[], $8::integer[], $9::text[], $10::boolean[])
      AS i (id, owner, status, next_attempt_at, updated_at, at, duration_ms, status_code, error, interrupted)
  ), applied AS (
    UPDATE ${t.deliveries} AS d
    SET status = CASE WHEN i.interrupted THEN d.status ELSE i.status END,
        attempt_count = d.attempt_count + CASE WHEN i.interrupted THEN 0 ELSE 1 END,
        next_attempt_at = CASE WHEN i.interrupted THEN d.next_attempt_at ELSE i.next_attempt_at END,
        lease_owner = NULL, lease_expires_at = NULL, updated_at = i.updated_at
    FROM input AS i
    WHERE d.id = i.id AND d.lease_owner = i.owner AND d.status = 'pending'
    RETURNING d.id
  )
  INSERT INTO ${t.attempts} (delivery_id, attempt, at, duration_ms, status_code, error, interrupted)
  SELECT i.id, (SELECT coalesce(max(a.attempt), 0) + 1 FROM ${t.attempts} AS a WHERE a.delivery_id = i.id),
    i.at, i.duration_ms, i.status_code, i.error, i.interrupted
  FROM applied JOIN input AS i ON i.id = applied.id
  RETURNING delivery_id`;

/** Parameters: ids (text[]), owner. */
export const releaseSql = (t: Tables) => `
  UPDATE ${t.deliveries} SET lease_owner = NULL, lease_expires_at = NULL
  WHERE id = ANY ($1::text[]) AND lease_owner = $2`;

/** No parameters. The backlog for metrics: read at scrape time, through the partial index of pending rows. */
export const pendingStatsSql = (t: Tables) => `
  SELECT count(*) AS count, min(created_at) AS oldest FROM ${t.deliveries} WHERE status = 'pending'`;

/** No parameters. */
export const nextDueAtSql = (t: Tables) => `
  SELECT min(greatest(next_attempt_at, lease_expires_at)) AS at
  FROM ${t.deliveries} WHERE status = 'pending'`;

/** A delivery's columns and its attempts, oldest first, as a JSON array (one statement: one snapshot). */
const deliveryColumns = (t: Tables) => `
  d.id, d.tenant, d.endpoint_id, d.event_type, d.payload, d.created_at, d.traceparent, d.status, d.attempt_count, d.next_attempt_at,
  coalesce((
    SELECT json_agg(json_strip_nulls(json_build_object(
      'at', a.at, 'durationMs', a.duration_ms, 'statusCode', a.status_code, 'error', a.error,
      'interrupted', CASE WHEN a.interrupted THEN true END)) ORDER BY a.attempt)
    FROM ${t.attempts} AS a WHERE a.delivery_id = d.id
  ), '[]'::json) AS attempts`;

/** Parameters: id. */
export const getDeliverySql = (t: Tables) => `SELECT ${deliveryColumns(t)} FROM ${t.deliveries} AS d WHERE d.id = $1`;

/** Parameters: limit. Newest first (creation time, then insertion order). */
export const listDeliveriesSql = (t: Tables) => `
  SELECT ${deliveryColumns(t)} FROM ${t.deliveries} AS d
  ORDER BY d.created_at DESC, d.seq DESC LIMIT $1`;

/** Parameters: status, limit. */
export const listDeliveriesByStatusSql = (t: Tables) => `
  SELECT ${deliveryColumns(t)} FROM ${t.deliveries} AS d
  WHERE d.status = $1
  ORDER BY d.created_at DESC, d.seq DESC LIMIT $2`;

/** Parameters: id, now. */
export const requeueSql = (t: Tables) => `
  UPDATE ${t.deliveries}
  SET status = 'pending', next_attempt_at = $2, lease_owner = NULL, lease_expires_at = NULL, updated_at = $2
  WHERE id = $1 AND status = 'failed'`;

/** Parameters: id, tenant. The listing position of one of the tenant's endpoint deliveries (a keyset cursor). */
export const tenantCursorSql = (t: Tables) => `
  SELECT created_at, seq FROM ${t.deliveries} WHERE id = $1 AND tenant = $2 AND left(endpoint_id, 3) = 'ep_'`;

/**
 * Parameters: tenant, endpoint id (NULL: all), status (NULL: all), cursor created-at and seq (NULL: from the newest),
 * limit. Only deliveries to tenant endpoints (`ep_…`), never those of operator subscriptions.
 */
export const listTenantDeliveriesSql = (t: Tables) => `
  SELECT ${deliveryColumns(t)} FROM ${t.deliveries} AS d
  WHERE d.tenant = $1 AND left(d.endpoint_id, 3) = 'ep_'
    AND ($2::text IS NULL OR d.endpoint_id = $2) AND ($3::text IS NULL OR d.status = $3)
    AND ($4::bigint IS NULL OR (d.created_at, d.seq) < ($4::bigint, $5::bigint))
  ORDER BY d.created_at DESC, d.seq DESC LIMIT $6`;

/** Parameters: id, now. Back to pending whatever the state; a lease in flight is left to end by itself. */
export const resendSql = (t: Tables) => `
  UPDATE ${t.deliveries} SET status = 'pending', next_attempt_at = $2, updated_at = $2 WHERE id = $1`;

/** Parameters: endpoint id, since, now. */
export const requeueFailedSinceSql = (t: Tables) => `
  UPDATE ${t.deliveries}
  SET status = 'pending', next_attempt_at = $3, lease_owner = NULL, lease_expires_at = NULL, updated_at = $3
  WHERE endpoint_id = $1 AND status = 'failed' AND created_at >= $2`;
