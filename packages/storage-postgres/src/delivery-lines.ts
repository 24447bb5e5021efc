import type { Tables } from './tables.js';

// The rule of a delivery line, written once for PostgreSQL: a line (endpoint and ordering key) has exactly one message
// that is due or in flight, and its end makes the next one due. Every statement that puts a message in a line or ends
// one takes its SQL from here.

/**
 * The place of the last pending message of a line (endpoint and key as SQL expressions of the statement), NULL when none is pending:
 * a message joining the line is then due at once, else held behind it. The row is locked (FOR UPDATE): a finisher ending it or
 * releasing the one after it waits for this statement's transaction, so it sees the message queued here; and if that finisher
 * committed first, the row is read as it left it (no longer pending, or no longer held).
 */
export const lineEnd = (t: Tables, endpoint: string, key: string) => `(
  SELECT p.line_seq FROM ${t.deliveries} AS p
  WHERE p.status = 'pending' AND p.endpoint_id = ${endpoint} AND p.ordering_key = ${key}
  ORDER BY p.line_seq DESC LIMIT 1
  FOR UPDATE)`;

/** The due time of a message joining a line whose end (see lineEnd) is `end`: `due` when the line is empty, else none (held). */
export const joinedDueAt = (end: string, due: string) => `CASE WHEN ${end} IS NULL THEN ${due} END`;

/** The place of a message joining the line of `key` (NULL: in none) whose end is `end`. */
export const joinedPlace = (key: string, end: string) => `CASE WHEN ${key} IS NOT NULL THEN coalesce(${end}, 0) + 1 END`;

/**
 * A due message (`row`) may be claimed only when no other of its line is in flight (`inFlight` of `o`, the other), nor due before it
 * (by place, then insertion). Normally the held ones wait without a due time and this is true at once; it keeps one in flight, in
 * queue order, when two writes queued into an empty line at the same moment (a plant deleted and created again concurrently),
 * each seeing the line empty, whichever of them committed first. Such messages share the line's first place, so only the
 * front of the line is read (`line_seq` bounds the line index's range), however long the line is behind it.
 */
export const firstOfItsLine = (t: Tables, row: string, inFlight: (other: string) => string) => `
  (${row}.ordering_key IS NULL OR NOT EXISTS (
    SELECT FROM ${t.deliveries} AS o
    WHERE o.status = 'pending' AND o.endpoint_id = ${row}.endpoint_id AND o.ordering_key = ${row}.ordering_key
      AND o.next_attempt_at IS NOT NULL AND o.id <> ${row}.id AND o.line_seq <= ${row}.line_seq
      AND ((o.line_seq, o.seq) < (${row}.line_seq, ${row}.seq) OR ${inFlight('o')})))`;

/**
 * The id of the pending message just before the message `row` (an alias of the statement) in its line, by place, then insertion:
 * the one it waits for while held; NULL for any other message. Only the part of the line before it is read (`line_seq` bounds the
 * line index's range), newest place first, so one seek finds it.
 */
export const waitingBehind = (t: Tables, row: string) => `
  CASE WHEN ${row}.status = 'pending' AND ${row}.next_attempt_at IS NULL AND ${row}.ordering_key IS NOT NULL THEN (
    SELECT p.id FROM ${t.deliveries} AS p
    WHERE p.status = 'pending' AND p.endpoint_id = ${row}.endpoint_id AND p.ordering_key = ${row}.ordering_key
      AND p.line_seq <= ${row}.line_seq AND (p.line_seq, p.seq) < (${row}.line_seq, ${row}.seq)
    ORDER BY p.line_seq DESC, p.seq DESC LIMIT 1) END`;

/** A claim's guard at `now`: a live lease is in flight. */
export const claimableInLine = (t: Tables, row: string, now: string) => firstOfItsLine(t, row, (other) => `${other}.lease_expires_at > ${now}`);

/**
 * Parameters: endpoint ids, ordering keys, end times (parallel arrays): lines whose due or in-flight message just ended. The first
 * held message of each becomes due at that time, unless another of the line is still due or in flight. Run in the transaction that
 * ended them, as a statement of its own, so it sees a message queued into the line by a transaction that held the ended one's
 * lock (see lineEnd).
 */
export const releaseNextSql = (t: Tables) => `
  UPDATE ${t.deliveries} AS d SET next_attempt_at = ended.at
  FROM unnest($1::text[], $2::text[], $3::bigint[]) AS ended (endpoint_id, ordering_key, at)
  WHERE d.id = (
    SELECT id FROM ${t.deliveries}
    WHERE status = 'pending' AND endpoint_id = ended.endpoint_id AND ordering_key = ended.ordering_key AND next_attempt_at IS NULL
    ORDER BY line_seq, seq LIMIT 1)
  AND ${lineIdle(t, 'ended.endpoint_id', 'ended.ordering_key')}`;

/**
 * Nothing of the line of `endpoint` and `key` (SQL expressions) is due or in flight (a leased message keeps its due time):
 * the condition for making its first held message due.
 */
export const lineIdle = (t: Tables, endpoint: string, key: string) => `NOT EXISTS (
    SELECT FROM ${t.deliveries}
    WHERE status = 'pending' AND endpoint_id = ${endpoint} AND ordering_key = ${key} AND next_attempt_at IS NOT NULL)`;

/**
 * Parameters: endpoint id. A statement that puts messages in an endpoint's lines takes the endpoint row's KEY SHARE lock (writes
 * do not wait on each other); parking, replaying or ending the endpoint's lines runs with its row locked FOR UPDATE (a change of
 * status: see lockEndpointStatusSql) or deleted, so the two never overlap: either that sees the messages queued, or the writer
 * sees the endpoint disabled, enabled or gone. Operator subscriptions have no row: nothing to lock.
 */
export const shareEndpointSql = (t: Tables) => `SELECT FROM ${t.endpoints} WHERE id = $1 FOR KEY SHARE`;

/**
 * Parameters: endpoint id, at, error, then any of `doomed`'s own. The messages `doomed` selects (a query of their ids, locking them in
 * queue order) end failed, each with a last attempt at `at` saying why (`error`), counted like any other.
 */
export const endWithAttemptSql = (t: Tables, doomed: string) => `
  WITH doomed AS (${doomed}), ended AS (
    UPDATE ${t.deliveries} AS d
    SET status = 'failed', attempt_count = d.attempt_count + 1, next_attempt_at = NULL,
        lease_owner = NULL, lease_expires_at = NULL, updated_at = $2
    FROM doomed WHERE d.id = doomed.id
    RETURNING d.id
  )
  INSERT INTO ${t.attempts} (delivery_id, attempt, at, duration_ms, status_code, error, interrupted)
  SELECT e.id, (SELECT coalesce(max(a.attempt), 0) + 1 FROM ${t.attempts} AS a WHERE a.delivery_id = e.id), $2, 0, NULL, $3, false
  FROM ended AS e`;

/**
 * The pending messages of endpoint $1 not in flight at $2 (no live lease), and its parked ones too with `andParked`, locked line by
 * line in queue order (see endEndpointSql).
 */
export const pendingNotInFlight = (t: Tables, { andParked = false } = {}) => `
    SELECT id FROM ${t.deliveries}
    WHERE endpoint_id = $1 AND (${andParked ? "status = 'parked' OR " : ''}(status = 'pending' AND (lease_expires_at IS NULL OR lease_expires_at <= $2)))
    ORDER BY ordering_key, line_seq, seq
    FOR UPDATE`;

/**
 * Parameters: endpoint id, at, error. Ends every pending message of the endpoint (all its lines, and those in none) and every parked
 * one as failed, each with a last attempt saying why, but those in flight (a live lease at `at`): an attempt in flight is left to
 * finish, so no message of a line is sent again, or after the next one, while it still runs; its next attempt, if any, finds the
 * endpoint gone and ends it then. Run after the endpoint's DELETE in the same transaction, as a statement of its own: its snapshot
 * then holds every message a writer queued or parked before the endpoint's row was free. Rows are locked line by line in queue
 * order, the order a recorder ending a message and releasing the next takes them in, so the two never deadlock.
 */
export const endEndpointSql = (t: Tables) => endWithAttemptSql(t, pendingNotInFlight(t, { andParked: true }));
