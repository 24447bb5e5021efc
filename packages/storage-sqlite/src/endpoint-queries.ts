import { BOUND_LIMIT } from './bound-limit.js';

const COLUMNS = `id, tenant, url, event_types, description, rate_limit, headers, filter, ordering, status, disabled_reason, secret, previous_secret,
  previous_secret_expires_at, failing_since, exhausted_at, created_at, updated_at, parked_dropped`;

export const INSERT_ENDPOINT = `
  INSERT INTO webhook_endpoints (id, tenant, url, event_types, description, rate_limit, headers, filter, ordering, status, secret, created_at, updated_at)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'enabled', ?, ?, ?)
  RETURNING ${COLUMNS}`;

export const SELECT_ENDPOINT = `SELECT ${COLUMNS} FROM webhook_endpoints WHERE id = ?`;

/** The status an update starts from: disabling an enabled endpoint parks, enabling a disabled one replays or discards. */
export const SELECT_STATUS = 'SELECT status FROM webhook_endpoints WHERE id = ?';

export const COUNT_TENANT_ENDPOINTS = 'SELECT count(*) FROM webhook_endpoints WHERE tenant = ?';

export const LIST_TENANT_ENDPOINTS = `SELECT ${COLUMNS} FROM webhook_endpoints WHERE tenant = ? AND id > ? ORDER BY id LIMIT ${BOUND_LIMIT}`;

export const LIST_ENDPOINTS = `SELECT ${COLUMNS} FROM webhook_endpoints WHERE id > ? ORDER BY id LIMIT ${BOUND_LIMIT}`;

const UPDATABLE = ['url', 'event_types', 'description', 'rate_limit', 'headers', 'filter', 'ordering', 'status', 'disabled_reason'];

/** Parameters: a keep/set flag and a value per column of UPDATABLE, then updated at, id, tenant (twice; NULL: any). */
export const UPDATE_ENDPOINT = `
  UPDATE webhook_endpoints SET ${UPDATABLE.map((column) => `${column} = CASE WHEN ? THEN ? ELSE ${column} END`).join(', ')},
    updated_at = ?
  WHERE id = ? AND (? IS NULL OR tenant = ?)
  RETURNING ${COLUMNS}`;

export const DELETE_ENDPOINT = 'DELETE FROM webhook_endpoints WHERE id = ? AND tenant = ?';

export const ROTATE_SECRET = `
  UPDATE webhook_endpoints SET previous_secret = secret, secret = ?, previous_secret_expires_at = ?, updated_at = ?
  WHERE id = ? AND tenant = ?`;

export const NOTE_SUCCESS = `
  UPDATE webhook_endpoints SET failing_since = NULL, exhausted_at = NULL WHERE id = ? RETURNING failing_since, exhausted_at`;

export const NOTE_FAILURE = `
  UPDATE webhook_endpoints SET failing_since = coalesce(failing_since, ?), exhausted_at = coalesce(exhausted_at, ?)
  WHERE id = ? RETURNING failing_since, exhausted_at`;
