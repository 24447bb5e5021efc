import { endWithAttemptSql, pendingNotInFlight } from './delivery-lines.js';
import { prepared, type PreparedStatement } from './query-runner.js';
import type { Tables } from './tables.js';

// Parked messages: kept for a disabled endpoint (never due, in no line, keeping their ordering key), bounded per endpoint, and
// replayed or discarded when it is enabled again. A plant write parks them in its fan-out (see plant-queries.ts); a disable parks
// the endpoint's pending ones; both then apply the bound. Every statement here runs with the endpoint's row locked.

/**
 * Parameters: endpoint id, at. A disable, after the endpoint's row is locked FOR UPDATE in the same transaction: every pending message
 * not in flight becomes parked (its due time, place in line and run-out lease cleared, its attempts and ordering key kept), and the
 * endpoint's count of dropped ones starts again. Messages in flight are left to their attempt, whose next one parks them.
 * Answers nothing; apply the bound after it.
 */
export const parkEndpointSql = (t: Tables) => `
  WITH parking AS (${pendingNotInFlight(t)}
  ), restarted AS (
    UPDATE ${t.endpoints} SET parked_dropped = 0 WHERE id = $1
  )
  UPDATE ${t.deliveries} AS d
  SET status = 'parked', next_attempt_at = NULL, line_seq = NULL, lease_owner = NULL, lease_expires_at = NULL, updated_at = $2
  FROM parking WHERE d.id = parking.id`;

/**
 * Parameters: endpoint ids (text[]), limit, lock namespace. The bound: beyond `limit` parked messages of each endpoint, the oldest
 * (creation time, then insertion) are deleted with their attempts, and the endpoint counts them (`parked_dropped`), exactly: a
 * DELETE counts only rows it deleted itself. Newest first on the parked index, so only the kept ones and those dropped are read.
 *
 * Run right after a statement that parked something (on the same executor: a host's transaction runs it before its commit).
 * The endpoint's row is KEY SHARE locked first, as a plant write locks it, before any message (so an enable, which locks the row
 * FOR UPDATE and then its messages, never meets this statement the other way round), then bounds take turns per endpoint on a
 * transaction advisory lock (namespace and id), in id order. Not on the endpoint's row: a host's transaction already holds its KEY
 * SHARE lock, and waiting to strengthen it would queue behind an enable waiting for that very lock (a deadlock). Taking turns, the
 * count's UPDATE never waits for another bound. A snapshot taken before the turn came may still see rows the previous bound deleted
 * (skipped) and miss rows parked since: those writes bound them.
 */
export const boundParkedSql = (t: Tables) => `
  WITH bounded AS MATERIALIZED (
    SELECT e.id FROM ${t.endpoints} AS e WHERE e.id = ANY ($1::text[]) ORDER BY e.id FOR KEY SHARE
  ), turns AS MATERIALIZED (
    SELECT b.id, pg_advisory_xact_lock(hashtextextended($3::text || b.id, 0)) FROM bounded AS b ORDER BY b.id
  ), doomed AS MATERIALIZED (
    SELECT old.id FROM turns CROSS JOIN LATERAL (
      SELECT p.id FROM ${t.deliveries} AS p
      WHERE p.status = 'parked' AND p.endpoint_id = turns.id
      ORDER BY p.created_at DESC, p.seq DESC
      OFFSET $2
    ) AS old
  ), dropped AS (
    DELETE FROM ${t.deliveries} AS d USING doomed WHERE d.id = doomed.id AND d.status = 'parked'
    RETURNING d.endpoint_id
  )
  UPDATE ${t.endpoints} AS e SET parked_dropped = e.parked_dropped + counted.n
  FROM (SELECT endpoint_id, count(*) AS n FROM dropped GROUP BY endpoint_id) AS counted
  WHERE e.id = counted.endpoint_id`;

/** The advisory lock namespace of this schema's bounds (see boundParkedSql). */
const boundLockNamespace = (t: Tables) => `plant-store parked bound of ${t.endpoints} `;

/**
 * Parameters: endpoint id, at, error, before. An enable's discard, after the endpoint's row is locked FOR UPDATE: the parked messages
 * created before `before` end failed with a last attempt saying why (the replay of the others follows).
 */
export const discardParkedSql = (t: Tables) =>
  endWithAttemptSql(
    t,
    `
    SELECT id FROM ${t.deliveries}
    WHERE status = 'parked' AND endpoint_id = $1 AND created_at < $4
    ORDER BY created_at, seq
    FOR UPDATE`,
  );

/** The bound of a storage (its `parkedLimit`), for whoever parks: the statement and its parameters (see boundParkedSql). */
export interface ParkedBound {
  readonly statement: PreparedStatement;
  /** The parameters for these endpoints, each of which parked something. */
  parameters(endpointIds: readonly string[]): unknown[];
}

export function parkedBound(t: Tables, limit: number): ParkedBound {
  const namespace = boundLockNamespace(t);
  return { statement: prepared(boundParkedSql(t)), parameters: (endpointIds) => [endpointIds, limit, namespace] };
}
