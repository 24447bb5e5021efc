import type { Tables } from './tables.js';

// SQL of the endpoint repository. A disable parks the endpoint's pending deliveries, an enable replays or discards its parked
// ones, and a delete ends them all, through the outbox's own operations (PostgresWebhookOutbox), in the same transaction.

const ENDPOINT_COLUMNS = `id, tenant, url, event_types, description, rate_limit, headers, filter, ordering, status, disabled_reason,
  secret, previous_secret, previous_secret_expires_at, created_at, updated_at, parked_dropped`;

/**
 * Parameters: id, tenant, url, event types, description, rate limit, secret, created at, most per tenant, headers, ordering, filter. Run
 * after `lockTenantEndpointsSql` in the same transaction, so the count sees every endpoint created before the lock.
 */
export const insertEndpointSql = (t: Tables) => `
  INSERT INTO ${t.endpoints} (id, tenant, url, event_types, description, rate_limit, headers, ordering, filter, status, secret, created_at, updated_at)
  SELECT $1, $2, $3, $4::text[], $5, $6::integer, $10::jsonb, $11, $12::text, 'enabled', $7, $8, $8
  WHERE (SELECT count(*) FROM ${t.endpoints} WHERE tenant = $2) < $9::integer
  RETURNING ${ENDPOINT_COLUMNS}`;

/**
 * Parameters: id, tenant (NULL: any). The endpoint's status, its row locked FOR UPDATE until the transaction ends: taken before a
 * change of status, so the plant writes in flight (which share-lock it) commit first and the later ones wait (see shareEndpointSql).
 */
export const lockEndpointStatusSql = (t: Tables) => `
  SELECT status FROM ${t.endpoints} WHERE id = $1 AND ($2::text IS NULL OR tenant = $2) FOR UPDATE`;

/** Parameters: id, tenant (NULL: any). The endpoint's columns and its health. */
export const selectEndpointSql = (t: Tables) => `
  SELECT ${ENDPOINT_COLUMNS}, failing_since, exhausted_at FROM ${t.endpoints} WHERE id = $1 AND ($2::text IS NULL OR tenant = $2)`;

export const listEndpointsSql = (t: Tables) => `
  SELECT ${ENDPOINT_COLUMNS} FROM ${t.endpoints}
  WHERE ($1::text IS NULL OR tenant = $1) AND id > $2
  ORDER BY id LIMIT $3`;

const set = (column: string, flag: number, cast = '') => `${column} = CASE WHEN $${flag}::boolean THEN $${flag + 1}${cast} ELSE ${column} END`;

/**
 * Parameters: id, tenant (NULL: any), a keep/set flag and a value for url, event types, description, rate limit,
 * status, disabled reason, then updated at, and headers', ordering's and filter's flags and values.
 */
export const updateEndpointSql = (t: Tables) => `
  UPDATE ${t.endpoints} SET
    ${set('url', 3, '::text')}, ${set('event_types', 5, '::text[]')}, ${set('description', 7, '::text')},
    ${set('rate_limit', 9, '::integer')}, ${set('status', 11, '::text')}, ${set('headers', 16, '::jsonb')}, ${set('ordering', 18, '::text')},
    ${set('filter', 20, '::text')},
    disabled_reason = CASE WHEN (CASE WHEN $11::boolean THEN $12::text ELSE status END) = 'enabled' THEN NULL
                           WHEN $13::boolean THEN $14::text ELSE disabled_reason END,
    updated_at = $15::bigint
  WHERE id = $1 AND ($2::text IS NULL OR tenant = $2)
  RETURNING ${ENDPOINT_COLUMNS}`;

export const deleteEndpointSql = (t: Tables) => `DELETE FROM ${t.endpoints} WHERE id = $1 AND tenant = $2 RETURNING id`;

/** Parameters: id, tenant, secret, previous expires at, at, then the NOTIFY channel and payload that announce it (sent at the commit). One row when rotated. */
export const rotateSecretSql = (t: Tables) => `
  WITH rotated AS (
    UPDATE ${t.endpoints} SET previous_secret = secret, secret = $3, previous_secret_expires_at = $4, updated_at = $5
    WHERE id = $1 AND tenant = $2
    RETURNING id
  )
  SELECT pg_notify($6, $7) FROM rotated`;

/**
 * Parameters: id, succeeded, at, exhausted at (NULL: not exhausted), then the NOTIFY channel and payload that announce a failing streak
 * this attempt starts (other instances skip noting successes while they know of no streak). One row when the endpoint exists.
 */
export const noteAttemptSql = (t: Tables) => `
  WITH noted AS (
    UPDATE ${t.endpoints} SET
      failing_since = CASE WHEN $2::boolean THEN NULL ELSE coalesce(failing_since, $3::bigint) END,
      exhausted_at = CASE WHEN $2::boolean THEN NULL ELSE coalesce(exhausted_at, $4::bigint) END
    WHERE id = $1
    RETURNING failing_since, exhausted_at
  )
  SELECT failing_since, exhausted_at, CASE WHEN NOT $2::boolean AND failing_since = $3::bigint THEN pg_notify($5, $6) END AS announced
  FROM noted`;
