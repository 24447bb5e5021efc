import { ENDPOINT_ID_PREFIX, INT64_MIN } from '@plant-store/core/adapter';
import { advisoryLockKey } from './advisory-lock-key.js';
import { claimableInLine, firstOfItsLine, joinedDueAt, joinedPlace, lineEnd, waitingBehind } from './delivery-lines.js';
import type { Tables } from './tables.js';

// SQL of the webhook outbox, built once per storage. Every statement is atomic on its own, so no call holds a
// connection between round trips. `status = 'pending'` stays a literal where the partial due index should apply.

/** Leases the rows of the CTE `due` to owner $1 until $2. */
const leaseDue = (t: Tables) => `
  UPDATE ${t.deliveries} AS d SET lease_owner = $1, lease_expires_at = $2
  FROM due WHERE d.id = due.id
  RETURNING d.id, d.tenant, d.endpoint_id, d.event_type, d.payload, d.created_at, d.ordering_key, d.traceparent, d.attempt_count, d.next_attempt_at, d.seq`;

/**
 * Parameters: owner, lease end, now, limit. `SKIP LOCKED`: concurrent claimers on any instance pass over each other's
 * rows. Only the lease columns change, which no index holds, so a claim is a HOT update writing no index entry.
 */
export const claimDueSql = (t: Tables) => `
  WITH due AS (
    SELECT id FROM ${t.deliveries} AS c
    WHERE status = 'pending' AND next_attempt_at <= $3
      AND (lease_expires_at IS NULL OR lease_expires_at <= $3) AND ${claimableInLine(t, 'c', '$3')}
    ORDER BY next_attempt_at, seq
    LIMIT $4
    FOR UPDATE SKIP LOCKED
  )${leaseDue(t)}`;

// The endpoint_due index's order, read as ranges of row comparisons: no other index gives them, so the planner never
// walks another index past an endpoint's backlog or history, whatever its statistics say.
const ENDPOINT_DUE_ORDER = 'endpoint_id, next_attempt_at, seq';

/** The endpoints with pending deliveries (`endpoints(id)`, ending with a NULL row), one seek apart (a loose index scan). */
const pendingEndpointsCte = (t: Tables) => `
  WITH RECURSIVE endpoints(id) AS (
    (SELECT endpoint_id FROM ${t.deliveries} WHERE status = 'pending' ORDER BY ${ENDPOINT_DUE_ORDER} LIMIT 1)
    UNION ALL
    SELECT (SELECT endpoint_id FROM ${t.deliveries} WHERE status = 'pending' AND endpoint_id > endpoints.id ORDER BY ${ENDPOINT_DUE_ORDER} LIMIT 1)
    FROM endpoints WHERE endpoints.id IS NOT NULL
  )`;

/**
 * Parameters: those of `claimDueSql`, then endpoints to pass over (text[]). Endpoint by endpoint, merged into one due
 * order: walking the due index instead would step over a slow receiver's whole backlog on every claim.
 */
export const claimDuePassingOverSql = (t: Tables) => `${pendingEndpointsCte(t)},
  due AS (
    SELECT claimable.id FROM endpoints CROSS JOIN LATERAL (
      SELECT id, next_attempt_at, seq FROM ${t.deliveries} AS c
      WHERE status = 'pending'
        AND (endpoint_id, next_attempt_at) >= (endpoints.id, ${INT64_MIN}) AND (endpoint_id, next_attempt_at) <= (endpoints.id, $3)
        AND (lease_expires_at IS NULL OR lease_expires_at <= $3) AND ${claimableInLine(t, 'c', '$3')}
      ORDER BY ${ENDPOINT_DUE_ORDER}
      LIMIT $4
      FOR UPDATE SKIP LOCKED
    ) AS claimable
    WHERE endpoints.id IS NOT NULL AND endpoints.id <> ALL ($5::text[])
    ORDER BY claimable.next_attempt_at, claimable.seq
    LIMIT $4
  )${leaseDue(t)}`;

/**
 * A batch of attempts to distinct deliveries, as parameter arrays (see `i`'s columns), each applied only under its
 * owner's lease; returns each delivery recorded with its line and whether it ended (its end releases the next of its
 * line: see releaseNextSql). An interrupted attempt only ends the lease. A parked one (the endpoint was found disabled)
 * leaves the line, keeping its ordering key, and is not counted toward the retry schedule.
 */
export const recordAttemptsSql = (t: Tables) => `
  WITH input AS (
    SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::bigint[], $6::bigint[], $7::bigint[], $8::integer[], $9::text[], $10::boolean[], $11::text[])
      AS i (id, owner, status, next_attempt_at, updated_at, at, duration_ms, status_code, error, interrupted, response)
  ), applied AS (
    UPDATE ${t.deliveries} AS d
    SET status = CASE WHEN i.interrupted THEN d.status ELSE i.status END,
        attempt_count = d.attempt_count + CASE WHEN i.interrupted OR i.status = 'parked' THEN 0 ELSE 1 END,
        next_attempt_at = CASE WHEN i.interrupted THEN d.next_attempt_at ELSE i.next_attempt_at END,
        line_seq = CASE WHEN i.status = 'parked' THEN NULL ELSE d.line_seq END,
        lease_owner = NULL, lease_expires_at = NULL, updated_at = i.updated_at
    FROM input AS i
    WHERE d.id = i.id AND d.lease_owner = i.owner AND d.status = 'pending'
    RETURNING d.id, d.endpoint_id, d.ordering_key, d.status <> 'pending' AS ended, d.updated_at
  ), logged AS (
    INSERT INTO ${t.attempts} (delivery_id, attempt, at, duration_ms, status_code, error, interrupted, response)
    SELECT i.id, (SELECT coalesce(max(a.attempt), 0) + 1 FROM ${t.attempts} AS a WHERE a.delivery_id = i.id),
      i.at, i.duration_ms, i.status_code, i.error, i.interrupted, i.response
    FROM applied JOIN input AS i ON i.id = applied.id
  )
  SELECT id, endpoint_id, ordering_key, ended, updated_at FROM applied`;

export const releaseSql = (t: Tables) => `
  UPDATE ${t.deliveries} SET lease_owner = NULL, lease_expires_at = NULL
  WHERE id = ANY ($1::text[]) AND lease_owner = $2`;

export const pendingStatsSql = (t: Tables) => `
  SELECT count(*) AS count, min(created_at) AS oldest FROM ${t.deliveries} WHERE status = 'pending'`;

/** Parameters: now. Each endpoint with deliveries due and not leased, and the earliest due time. */
export const waitingSinceSql = (t: Tables) => `${pendingEndpointsCte(t)}
  SELECT endpoints.id, head.since FROM endpoints CROSS JOIN LATERAL (
    SELECT next_attempt_at AS since FROM ${t.deliveries} AS w
    WHERE status = 'pending'
      AND (endpoint_id, next_attempt_at) >= (endpoints.id, ${INT64_MIN}) AND (endpoint_id, next_attempt_at) <= (endpoints.id, $1)
      AND (lease_expires_at IS NULL OR lease_expires_at <= $1) AND ${claimableInLine(t, 'w', '$1')}
    ORDER BY ${ENDPOINT_DUE_ORDER}
    LIMIT 1
  ) AS head
  WHERE endpoints.id IS NOT NULL`;

/**
 * When a claim can next take a delivery: the next pending one's due time or lease end, whichever is later. One not leased that
 * waits behind another of its line, due or leased, is left out: that one's time (or its end, which wakes the dispatcher) comes
 * first. Reads only the head of the due index: the earliest delivery not leased past its due time, and the leased ones due
 * before it, whose lease may end first.
 */
export const nextDueAtSql = (t: Tables) => `
  WITH head AS (
    SELECT next_attempt_at AS at FROM ${t.deliveries} AS h
    WHERE status = 'pending' AND next_attempt_at IS NOT NULL AND (lease_expires_at IS NULL OR lease_expires_at <= next_attempt_at)
      AND ${notWaitingInLine(t, 'h')}
    ORDER BY next_attempt_at, seq LIMIT 1
  )
  SELECT min(at) AS at FROM (
    SELECT at FROM head
    UNION ALL
    SELECT lease_expires_at FROM ${t.deliveries}
    WHERE status = 'pending' AND lease_expires_at > next_attempt_at
      AND next_attempt_at <= coalesce((SELECT at FROM head), ${Number.MAX_SAFE_INTEGER})
  ) AS candidates`;

/** For nextDueAt: any lease (live or run out) marks the other as in flight, whose own time then stands for the line. */
const notWaitingInLine = (t: Tables, row: string) => firstOfItsLine(t, row, (other) => `${other}.lease_expires_at IS NOT NULL`);

/** A delivery's columns, what it waits for while held, and its attempts, oldest first, as a JSON array (one statement: one snapshot). */
const deliveryColumns = (t: Tables) => `
  d.id, d.tenant, d.endpoint_id, d.event_type, d.payload, d.created_at, d.ordering_key, d.traceparent, d.status, d.attempt_count, d.next_attempt_at, d.test,
  ${waitingBehind(t, 'd')} AS waiting_behind,
  coalesce((
    SELECT json_agg(json_strip_nulls(json_build_object(
      'at', a.at, 'durationMs', a.duration_ms, 'statusCode', a.status_code, 'error', a.error,
      'interrupted', CASE WHEN a.interrupted THEN true END, 'response', a.response)) ORDER BY a.attempt)
    FROM ${t.attempts} AS a WHERE a.delivery_id = d.id
  ), '[]'::json) AS attempts`;

export const getDeliverySql = (t: Tables) => `SELECT ${deliveryColumns(t)} FROM ${t.deliveries} AS d WHERE d.id = $1`;

/** What a recovery brings back to pending: the failed deliveries of an endpoint (a requeue), or its parked ones (an enable's replay). */
export type Rejoining = 'failed' | 'parked';

/** Parameters: endpoint id, now, since. Back to pending without a lease, due now: the endpoint's deliveries of that status in no line. */
export const rejoinUnlinedSinceSql = (t: Tables, status: Rejoining) => `
  UPDATE ${t.deliveries} SET status = 'pending', next_attempt_at = $2, lease_owner = NULL, lease_expires_at = NULL, updated_at = $2
  WHERE endpoint_id = $1 AND created_at >= $3 AND status = '${status}' AND ordering_key IS NULL
  RETURNING id`;

/** Parameters: id. The endpoint of a delivery, whose share lock a requeue takes before it joins a line. */
export const deliveryEndpointSql = (t: Tables) => `SELECT endpoint_id FROM ${t.deliveries} WHERE id = $1`;

/** Parameters: endpoint id, since. The endpoint's deliveries of that status in a line, in creation order, each to rejoin its line on its own. */
export const inLineSinceSql = (t: Tables, status: Rejoining) => `
  SELECT id FROM ${t.deliveries}
  WHERE endpoint_id = $1 AND created_at >= $2 AND status = '${status}' AND ordering_key IS NOT NULL
  ORDER BY created_at, seq`;

/**
 * Parameters: id, now, whether a delivered or parked one may be requeued too (a resend). A delivery of that status back to pending without
 * a lease, due at once, at the back of its line: held when another of the line is pending.
 */
export const rejoinSql = (t: Tables, status: Rejoining) => `
  WITH target AS (
    SELECT id, endpoint_id, ordering_key FROM ${t.deliveries}
    WHERE id = $1 AND (status = '${status}' OR ($3::boolean AND status IN ('delivered', 'parked')))
    FOR UPDATE
  ), line AS (
    SELECT ${lineEnd(t, 'target.endpoint_id', 'target.ordering_key')} AS last FROM target
  )
  UPDATE ${t.deliveries} AS d
  SET status = 'pending', lease_owner = NULL, lease_expires_at = NULL, updated_at = $2,
      next_attempt_at = ${joinedDueAt('line.last', '$2::bigint')}, line_seq = ${joinedPlace('d.ordering_key', 'line.last')}
  FROM target, line WHERE d.id = target.id
  RETURNING d.id`;

/** Deliveries to tenant endpoints (ids with the endpoint prefix), never those of operator subscriptions. */
const isTenantEndpoint = (column: string) => `left(${column}, ${ENDPOINT_ID_PREFIX.length}) = '${ENDPOINT_ID_PREFIX}'`;

/** Parameters: id, tenant (NULL: none). A delivery's keyset cursor, when the tenant may see it. */
export const listCursorSql = (t: Tables) => `
  SELECT created_at, seq FROM ${t.deliveries}
  WHERE id = $1 AND ($2::text IS NULL OR (tenant = $2 AND ${isTenantEndpoint('endpoint_id')}))`;

/**
 * Parameters (NULL: no such filter): tenant, endpoint id, status, cursor created-at and seq, limit, event type, since,
 * until. Run unprepared, so each call is planned with its parameters and a filter left NULL drops out of the plan.
 */
export const listDeliveriesSql = (t: Tables) => `
  SELECT ${deliveryColumns(t)} FROM ${t.deliveries} AS d
  WHERE ($1::text IS NULL OR (d.tenant = $1 AND ${isTenantEndpoint('d.endpoint_id')}))
    AND ($2::text IS NULL OR d.endpoint_id = $2) AND ($3::text IS NULL OR d.status = $3)
    AND ($7::text IS NULL OR d.event_type = $7)
    AND ($8::bigint IS NULL OR d.created_at >= $8) AND ($9::bigint IS NULL OR d.created_at < $9)
    AND ($4::bigint IS NULL OR (d.created_at, d.seq) < ($4::bigint, $5::bigint))
  ORDER BY d.created_at DESC, d.seq DESC LIMIT $6`;

/** Parameters: id, now. A resend of a pending delivery: due at once unless held (it keeps its place); a lease in flight is left to end by itself. */
export const resendPendingSql = (t: Tables) => `
  UPDATE ${t.deliveries} SET next_attempt_at = CASE WHEN next_attempt_at IS NOT NULL THEN $2::bigint END, updated_at = $2
  WHERE id = $1 AND status = 'pending'`;

/** The advisory lock key that lets one session at a time prune this schema's outbox (as text: a bigint parameter). */
export const pruneLockKey = (t: Tables) => advisoryLockKey(`plant-store prune of ${t.deliveries}`).toString();

/**
 * Parameters: cutoff, limit, lock key. Deletes nothing while another instance prunes. Finished: delivered, failed, or parked (then
 * `updated_at` is when it was parked). `created_at` before the cutoff is implied and bounds the scan on the (status, created_at)
 * index, so no index on `updated_at` is needed.
 */
export const pruneSql = (t: Tables) => `
  WITH lock AS MATERIALIZED (SELECT pg_try_advisory_xact_lock($3::bigint) AS held),
  doomed AS (
    SELECT id FROM ${t.deliveries}
    WHERE (SELECT held FROM lock) AND status IN ('delivered', 'failed', 'parked') AND created_at < $1 AND updated_at < $1
    LIMIT $2
    FOR UPDATE SKIP LOCKED
  )
  DELETE FROM ${t.deliveries} WHERE id IN (SELECT id FROM doomed)`;

/**
 * Outside any transaction. A plain VACUUM (VACUUM FULL would lock out reads, writes and claims), so the space of deleted
 * rows is reused where autovacuum is off or behind; SKIP_LOCKED skips a table another VACUUM works on.
 */
export const vacuumSql = (t: Tables) => `VACUUM (SKIP_LOCKED) ${t.deliveries}, ${t.attempts}, ${t.plants}`;

/**
 * Parameters: endpoint id, window start, rate limit. Counts one attempt; no row when the window is full or the endpoint
 * is gone. An older window (a lagging clock) counts against the newer.
 */
export const takeRateBudgetSql = (t: Tables) => `
  INSERT INTO ${t.rateBudgets} AS b (endpoint_id, window_start, used)
  SELECT $1, $2, 1 WHERE EXISTS (SELECT FROM ${t.endpoints} WHERE id = $1)
  ON CONFLICT (endpoint_id) DO UPDATE
  SET used = CASE WHEN excluded.window_start > b.window_start THEN 1 ELSE b.used + 1 END,
      window_start = greatest(b.window_start, excluded.window_start)
  WHERE excluded.window_start > b.window_start OR b.used < $3::integer
  RETURNING used, window_start`;

/**
 * Parameters: endpoint id, earliest window start, window starts, errors to leave out. Found through the deliveries
 * updated since the earliest start (every attempt moves `updated_at`), on the (endpoint_id, updated_at) index.
 */
export const endpointStatsSql = (t: Tables) => `
  WITH attempts AS (
    SELECT a.at, coalesce(a.status_code BETWEEN 200 AND 299, false) AS ok, a.status_code
    FROM ${t.attempts} AS a JOIN ${t.deliveries} AS d ON d.id = a.delivery_id
    WHERE d.endpoint_id = $1 AND d.attempt_count > 0 AND d.updated_at >= $2 AND a.at >= $2 AND NOT a.interrupted
      AND coalesce(a.error, '') <> ALL ($4::text[])
  )
  SELECT
    (SELECT json_agg(json_build_array(
        (SELECT count(*) FROM attempts WHERE at >= u.start AND ok),
        (SELECT count(*) FROM attempts WHERE at >= u.start AND NOT ok)) ORDER BY u.position)
     FROM unnest($3::bigint[]) WITH ORDINALITY AS u (start, position)) AS windows,
    (SELECT at FROM attempts ORDER BY at DESC LIMIT 1) AS last_at,
    (SELECT status_code FROM attempts ORDER BY at DESC LIMIT 1) AS last_status`;

/** One delivery queued on its own (a test event); with an ordering key ($8), at the back of its line. */
export const enqueueSql = (t: Tables) => `
  WITH line AS (SELECT ${lineEnd(t, '$3', '$8::text')} AS last)
  INSERT INTO ${t.deliveries}
    (id, tenant, endpoint_id, event_type, payload, status, attempt_count, next_attempt_at, created_at, updated_at, test, ordering_key, line_seq)
  SELECT $1, $2, $3, $4, $5, 'pending', 0, ${joinedDueAt('line.last', '$6::bigint')}, $6, $6, $7, $8::text, ${joinedPlace('$8::text', 'line.last')}
  FROM line`;
