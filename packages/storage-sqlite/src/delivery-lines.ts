// The rule of a delivery line, written once for SQLite: a line (endpoint and ordering key) has exactly one message that
// is due or in flight, and its end makes the next one due. Every statement that puts a message in a line or ends one
// takes its SQL from here. Writes take the database's one write lock, so no two of them interleave.

/**
 * The last place taken in a line (the endpoint and key given as SQL expressions), NULL when no
 * delivery of the line is pending: a new one is then due at once, else it is held (no due time) behind the others.
 */
export const lineEnd = (endpoint: string, key: string) => `(
  SELECT max(p.line_seq) FROM webhook_deliveries AS p INDEXED BY webhook_deliveries_line
  WHERE p.status = 'pending' AND p.endpoint_id = ${endpoint} AND p.ordering_key = ${key})`;

/** The end of the line of `key` (see lineEnd) read only when there is a line: an endpoint that does not order costs a fan-out no index seek. */
export const lineOfTarget = (endpoint: string, key: string) => `CASE WHEN ${key} IS NOT NULL THEN ${lineEnd(endpoint, key)} END`;

/** The due time of a message joining a line whose end (see lineEnd) is `end`: `due` when the line is empty, else none (held). */
export const joinedDueAt = (end: string, due: string) => `CASE WHEN ${end} IS NULL THEN ${due} END`;

/** The place of a message joining the line of `key` (NULL: in none) whose end is `end`. */
export const joinedPlace = (key: string, end: string) => `CASE WHEN ${key} IS NOT NULL THEN coalesce(${end}, 0) + 1 END`;

/**
 * Nothing of the line of `endpoint` and `key` (SQL expressions) is due or in flight (a leased message keeps its due time):
 * the condition for making its first held message due.
 */
export const lineIdle = (endpoint: string, key: string) => `NOT EXISTS (
    SELECT 1 FROM webhook_deliveries INDEXED BY webhook_deliveries_line
    WHERE status = 'pending' AND endpoint_id = ${endpoint} AND ordering_key = ${key} AND next_attempt_at IS NOT NULL)`;

/**
 * The id of the pending message just before the one of `row` (a table alias) in its line, by place: the one it waits for
 * while held. One seek of the line index.
 */
export const lineBefore = (row: string) => `(
  SELECT p.id FROM webhook_deliveries AS p INDEXED BY webhook_deliveries_line
  WHERE p.status = 'pending' AND p.endpoint_id = ${row}.endpoint_id AND p.ordering_key = ${row}.ordering_key
    AND p.line_seq <= ${row}.line_seq AND (p.line_seq, p.rowid) < (${row}.line_seq, ${row}.rowid)
  ORDER BY p.line_seq DESC, p.rowid DESC LIMIT 1)`;

/** The first held delivery of a line becomes due at @at, unless one of the line is still due or in flight. */
export const RELEASE_NEXT_IN_LINE = `
  UPDATE webhook_deliveries SET next_attempt_at = @at
  WHERE id = (
    SELECT id FROM webhook_deliveries INDEXED BY webhook_deliveries_line
    WHERE status = 'pending' AND endpoint_id = @endpoint AND ordering_key = @key AND next_attempt_at IS NULL
    ORDER BY line_seq, rowid LIMIT 1)
  AND ${lineIdle('@endpoint', '@key')}`;

/**
 * Parameters: id, now, and those of `condition`. The message @id, when `condition` holds for it, back to pending at the back of its
 * line: due at @now when the line is empty, else held behind it; one of no line is due at @now. The SET expressions read the row
 * as it was. A recovery's requeue, a resend and an enable's replay all take it, one message at a time in creation order.
 */
export const requeuedToBackOfLine = (condition: string) => `
  UPDATE webhook_deliveries AS d SET
    status = 'pending', updated_at = @now, lease_owner = NULL, lease_expires_at = NULL,
    next_attempt_at = ${joinedDueAt(lineOfTarget('d.endpoint_id', 'd.ordering_key'), '@now')},
    line_seq = ${joinedPlace('d.ordering_key', lineEnd('d.endpoint_id', 'd.ordering_key'))}
  WHERE id = @id AND (${condition})`;

/**
 * A pending message of the endpoint that its delete or disable takes: every one but those in flight (a live lease at @at). An
 * attempt in flight is left to finish, so no message of a line is sent again, or after the next one, while it still runs; its
 * next attempt, if any, finds the endpoint disabled (and parks it) or gone (and ends it).
 */
const TAKEN_FROM_ENDPOINT = `endpoint_id = @endpoint AND status = 'pending' AND (lease_expires_at IS NULL OR lease_expires_at <= @at)`;

/** Parameters: at, error, endpoint, and those of `condition`. Each delivery `condition` selects gets a last attempt saying why it ended; run before {@link endedDeliveries}. */
export const endedAttempts = (condition: string) => `
  INSERT INTO webhook_attempts (delivery_id, attempt, at, duration_ms, status_code, error, interrupted)
  SELECT id, (SELECT coalesce(max(a.attempt), 0) + 1 FROM webhook_attempts AS a WHERE a.delivery_id = d.id), @at, 0, NULL, @error, 0
  FROM webhook_deliveries AS d WHERE ${condition}`;

/** Parameters: at, endpoint, and those of `condition`. The deliveries `condition` selects end as failed (out of their line, if any). */
export const endedDeliveries = (condition: string) => `
  UPDATE webhook_deliveries
  SET status = 'failed', attempt_count = attempt_count + 1, next_attempt_at = NULL, lease_owner = NULL, lease_expires_at = NULL, updated_at = @at
  WHERE ${condition}`;

/** Parameters: at, error, endpoint. Run before {@link END_ENDPOINT_DELIVERIES}, while the deliveries are still pending. */
export const END_ENDPOINT_ATTEMPTS = endedAttempts(TAKEN_FROM_ENDPOINT);

/** Parameters: at, endpoint. The pending messages of the endpoint (its lines and the rest) that are not in flight end as failed. */
export const END_ENDPOINT_DELIVERIES = endedDeliveries(TAKEN_FROM_ENDPOINT);

/**
 * The SET of a message being parked (but its `updated_at`): out of its line (a replay puts it at the back again), never due, no
 * lease, its ordering key and attempts kept. The disable's park and an attempt's park both take it.
 */
export const PARKED_OUT_OF_LINE = `status = 'parked', next_attempt_at = NULL, line_seq = NULL, lease_owner = NULL, lease_expires_at = NULL`;

/** Parameters: at, endpoint. The pending messages of the endpoint (its lines and the rest) that are not in flight are parked (see PARKED_OUT_OF_LINE). */
export const PARK_ENDPOINT_DELIVERIES = `
  UPDATE webhook_deliveries
  SET ${PARKED_OUT_OF_LINE}, updated_at = @at
  WHERE ${TAKEN_FROM_ENDPOINT}`;
