// SQL of the outbox operations behind the tenant webhook portal (endpoint statistics, test events), built once per storage.

import type { Tables } from './tables.js';

/**
 * Parameters: endpoint id, earliest window start, window starts (bigint[]), attempt errors to leave out (text[]).
 * The attempts to one endpoint since the earliest start, through its deliveries updated since then (every attempt
 * moves `updated_at`) on the (endpoint_id, updated_at) index; interrupted ones left out. Returns per window
 * `[succeeded, failed]` in the order given, and the most recent attempt's time and status.
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

/** Parameters: id, tenant, endpoint id, event type, payload, created at, test. One delivery queued on its own (a test event). */
export const enqueueSql = (t: Tables) => `
  INSERT INTO ${t.deliveries}
    (id, tenant, endpoint_id, event_type, payload, status, attempt_count, next_attempt_at, created_at, updated_at, test)
  VALUES ($1, $2, $3, $4, $5, 'pending', 0, $6, $6, $6, $7)`;
