/* SQL of the webhook endpoint repository (better-sqlite3 positional parameters). */

import { BOUND_LIMIT } from './bound-limit.js';

const COLUMNS = `id, tenant, url, event_types, description, rate_limit, headers, status, disabled_reason, secret, previous_secret,
  previous_secret_expires_at, failing_since, exhausted_at, created_at, updated_at`;

/** Parameters: id, tenant, url, event types (JSON), description, rate limit, headers (JSON), secret, created at, updated at. Returns the row. */
export const INSERT_ENDPOINT = `
  INSERT INTO webhook_endpoints (id, tenant, url, event_types, description, rate_limit, headers, status, secret, created_at, updated_at)
  VALUES (?, ?, ?, ?, ?, ?, ?, 'enabled', ?, ?, ?)
  RETURNING ${COLUMNS}`;

/** Parameters: id. */
export const SELECT_ENDPOINT = `SELECT ${COLUMNS} FROM webhook_endpoints WHERE id = ?`;

/** Parameters: tenant. */
export const COUNT_TENANT_ENDPOINTS = 'SELECT count(*) FROM webhook_endpoints WHERE tenant = ?';

/** Parameters: tenant, after (an id; '' from the start), limit. */
export const LIST_TENANT_ENDPOINTS = `SELECT ${COLUMNS} FROM webhook_endpoints WHERE tenant = ? AND id > ? ORDER BY id LIMIT ${BOUND_LIMIT}`;

/** Parameters: after (an id; '' from the start), limit. Every tenant's. */
export const LIST_ENDPOINTS = `SELECT ${COLUMNS} FROM webhook_endpoints WHERE id > ? ORDER BY id LIMIT ${BOUND_LIMIT}`;

/** The columns an update may change, in the order of {@link UPDATE_ENDPOINT}'s parameters. */
const UPDATABLE = ['url', 'event_types', 'description', 'rate_limit', 'headers', 'status', 'disabled_reason'];

/**
 * Parameters: a keep/set flag (0 keeps the column) and a value per column of UPDATABLE, then updated at, id, tenant
 * (twice; NULL: any tenant's). Returns the updated row, none when there is no such endpoint (of that tenant).
 */
export const UPDATE_ENDPOINT = `
  UPDATE webhook_endpoints SET ${UPDATABLE.map((column) => `${column} = CASE WHEN ? THEN ? ELSE ${column} END`).join(', ')},
    updated_at = ?
  WHERE id = ? AND (? IS NULL OR tenant = ?)
  RETURNING ${COLUMNS}`;

/** Parameters: id, tenant. */
export const DELETE_ENDPOINT = 'DELETE FROM webhook_endpoints WHERE id = ? AND tenant = ?';

/** Parameters: new secret, previous secret's expiry, at, id, tenant. The current secret becomes the previous one. */
export const ROTATE_SECRET = `
  UPDATE webhook_endpoints SET previous_secret = secret, secret = ?, previous_secret_expires_at = ?, updated_at = ?
  WHERE id = ? AND tenant = ?`;

/** Parameters: id. Healthy again; returns the health columns. */
export const NOTE_SUCCESS = `
  UPDATE webhook_endpoints SET failing_since = NULL, exhausted_at = NULL WHERE id = ? RETURNING failing_since, exhausted_at`;

/** Parameters: at (failing since, when not already), exhausted at (NULL: not exhausted), id. Returns the health columns. */
export const NOTE_FAILURE = `
  UPDATE webhook_endpoints SET failing_since = coalesce(failing_since, ?), exhausted_at = coalesce(exhausted_at, ?)
  WHERE id = ? RETURNING failing_since, exhausted_at`;

/** Parameters: at, error, endpoint id. A last attempt saying why for each of the endpoint's pending deliveries (run before {@link FAIL_PENDING_DELIVERIES}). */
export const FAIL_PENDING_ATTEMPTS = `
  INSERT INTO webhook_attempts (delivery_id, attempt, at, duration_ms, status_code, error, interrupted)
  SELECT d.id, (SELECT coalesce(max(a.attempt), 0) + 1 FROM webhook_attempts AS a WHERE a.delivery_id = d.id), ?, 0, NULL, ?, 0
  FROM webhook_deliveries AS d WHERE d.endpoint_id = ? AND d.status = 'pending'`;

/** Parameters: at, endpoint id. Ends the endpoint's pending deliveries as failed. */
export const FAIL_PENDING_DELIVERIES = `
  UPDATE webhook_deliveries
  SET status = 'failed', attempt_count = attempt_count + 1, next_attempt_at = NULL, lease_owner = NULL, lease_expires_at = NULL, updated_at = ?
  WHERE endpoint_id = ? AND status = 'pending'`;
