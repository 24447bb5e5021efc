import { PLANT_FIELD_NAMES } from '@plant-store/core/adapter';
import { joinedDueAt, joinedPlace, lineEnd } from './delivery-lines.js';
import { filtersCurrent, unfilteredOrMatched } from './filtered-fan-out.js';
import type { Tables } from './tables.js';

/*
 * SQL of the plant repository, built once per storage (table names are
 * spliced in; every value is a parameter).
 *
 * Untagged listings read the primary key (tenant, id) from `after` onwards
 * and stop at the limit. Tag filters are one index range per tag on the
 * partial index (tenant, tag, id), each capped at what the page can use and
 * merged by id: a page costs O(tags × limit) however many plants carry those
 * tags, where `tag = ANY(…)` would read and sort them all.
 */

/**
 * The endpoints of tenant $1 subscribed to the endpoint event (parameter $ev its type; NULL: none), each share-locked (see
 * shareEndpointSql) before any message of its lines, as ending its lines locks them in that order (no deadlock): a disable,
 * enable or delete waits for this write, or this write sees it done. Endpoint by endpoint, in id order. An endpoint with a filter
 * only when the event matched it ($k…$k+2, see filtered-fan-out.ts). Parked (the endpoint disabled) or not is read from the row
 * as locked, not as the statement's snapshot had it: a write that waited for an enable's lock queues to it, since the enable's
 * replay read the parked messages before. Such a write to an endpoint that orders per plant is `raced`: its snapshot, older than
 * the replay, cannot see the line's end the replay made, so the statement writes nothing and answers `stale`, and the writer runs
 * it again (see PostgresPlantWrites). The snapshot's status is read only for an enabled endpoint that orders.
 */
const fanTargets = (t: Tables, ev: number, plant: number, k: number) => `
    SELECT e.id, e.tenant, e.status = 'disabled' AS parked, CASE WHEN e.ordering = 'plant' THEN $${plant}::bigint::text END AS key,
      CASE WHEN e.ordering = 'plant' AND e.status = 'enabled' THEN (SELECT s.status FROM ${t.endpoints} AS s WHERE s.id = e.id) = 'disabled'
           ELSE false END AS raced
    FROM ${t.endpoints} AS e
    WHERE $${ev}::text IS NOT NULL AND e.tenant = $1 AND $${ev}::text = ANY (e.event_types)
      AND ${unfilteredOrMatched('e', k)}
    ORDER BY e.id
    FOR KEY SHARE`;

/**
 * One delivery of an endpoint event (parameters $ev type, $ev+1 payload, $ev+2 created-at; $tp its traceparent or NULL) per
 * endpoint of `targets` (a CTE of fanTargets), inserted only when `gate` (a CTE) has a row: pending to an enabled endpoint, parked
 * to a disabled one (no due time, in no line, keeping its ordering key). Ids are `msg_` and a random UUID's 32 hex digits, as
 * core's `newMessageId` makes them. To an endpoint that orders per plant, a pending delivery joins the line of its plant (see
 * lineEnd). The line's end is read only for a pending delivery to an endpoint that orders (CASE evaluates its subquery lazily),
 * and once per endpoint: `OFFSET 0` keeps the planner from inlining `line.last` into each expression that reads it, which would
 * read it once each. Answers each delivery's endpoint and whether it was parked.
 */
const fanOut = (t: Tables, gate: string, ev: number, tp: number) => `
  INSERT INTO ${t.deliveries}
    (id, tenant, endpoint_id, event_type, payload, status, attempt_count, next_attempt_at, created_at, updated_at, traceparent, ordering_key, line_seq)
  SELECT 'msg_' || replace(gen_random_uuid()::text, '-', ''), e.tenant, e.id, $${ev}, $${ev + 1}, CASE WHEN e.parked THEN 'parked' ELSE 'pending' END, 0,
    CASE WHEN NOT e.parked THEN ${joinedDueAt('line.last', `$${ev + 2}::bigint`)} END, $${ev + 2}, $${ev + 2}, $${tp}::text, e.key,
    CASE WHEN NOT e.parked THEN ${joinedPlace('e.key', 'line.last')} END
  FROM targets AS e
  CROSS JOIN LATERAL (SELECT CASE WHEN e.key IS NOT NULL AND NOT e.parked THEN ${lineEnd(t, 'e.id', 'e.key')} END AS last OFFSET 0) AS line
  WHERE EXISTS (SELECT FROM ${gate})
  RETURNING endpoint_id, status = 'parked' AS parked`;

/** Whether the statement may write: the filters evaluated are current, and no target raced an enable (see fanTargets). */
const WRITABLE = '(SELECT current FROM filters) AND NOT EXISTS (SELECT FROM targets WHERE raced)';

/** The endpoints `fanned` (the fan-out's CTE) parked a delivery for, as text[] (NULL: none): the bound applies to them next. */
const PARKED_ENDPOINTS = '(SELECT array_agg(endpoint_id) FROM fanned WHERE parked) AS parked';

/** The plant's columns (one per field, of its name), in field order. */
const COLUMNS = PLANT_FIELD_NAMES.join(', ');

/** The first parameter of the plant's columns in {@link createPlantSql}: they come last, so a new field renumbers nothing. */
const FIRST_COLUMN_PARAMETER = 13;

/** The first of the three filter parameters of {@link createPlantSql} (see filtered-fan-out.ts), after the plant's columns. */
const CREATE_FILTERS_PARAMETER = FIRST_COLUMN_PARAMETER + PLANT_FIELD_NAMES.length;

/**
 * Parameters: tenant, then the deliveries column by column (ids, tenants, endpoints, event types, payloads,
 * created-at times), then the endpoint event (type or NULL, payload, created-at), then the deliveries' traceparents
 * (text[], NULL items for none) and the event's (or NULL), then the plant's columns (see `plantColumns`), then the
 * filters evaluated (ids, texts, matched). Writes nothing and answers `stale` when the filters evaluated are not current or
 * a target raced an enable (see fanTargets); answers the endpoints it parked a delivery for in `parked`.
 */
export const createPlantSql = (t: Tables) => `
  WITH filters AS (
    SELECT ${filtersCurrent(t, 8, CREATE_FILTERS_PARAMETER)} AS current
  ), targets AS MATERIALIZED (${fanTargets(t, 8, FIRST_COLUMN_PARAMETER + PLANT_FIELD_NAMES.indexOf('id'), CREATE_FILTERS_PARAMETER)}
  ), inserted AS (
    INSERT INTO ${t.plants} (tenant, ${COLUMNS})
    SELECT $1, ${PLANT_FIELD_NAMES.map((_, index) => `$${FIRST_COLUMN_PARAMETER + index}`).join(', ')}
    WHERE ${WRITABLE}
    ON CONFLICT DO NOTHING
    RETURNING id
  ), queued AS (
    INSERT INTO ${t.deliveries}
      (id, tenant, endpoint_id, event_type, payload, status, attempt_count, next_attempt_at, created_at, updated_at, traceparent)
    SELECT d.id, d.tenant, d.endpoint_id, d.event_type, d.payload, 'pending', 0, d.created_at, d.created_at, d.created_at, d.traceparent
    FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[], $11::text[])
      WITH ORDINALITY AS d (id, tenant, endpoint_id, event_type, payload, created_at, traceparent, ord)
    WHERE EXISTS (SELECT FROM inserted)
    ORDER BY d.ord
    RETURNING 1
  ), fanned AS (${fanOut(t, 'inserted', 8, 12)})
  SELECT EXISTS (SELECT FROM inserted) AS created, EXISTS (SELECT FROM queued) OR EXISTS (SELECT FROM fanned WHERE NOT parked) AS queued,
    NOT (${WRITABLE}) AS stale, ${PARKED_ENDPOINTS}`;

/**
 * Parameters: tenant, id, then the endpoint event (type or NULL, payload, created-at), then the event's traceparent (or NULL), then
 * the filters evaluated (ids, texts, matched). Deletes nothing and answers `stale` when the filters evaluated are not current
 * or a target raced an enable (see fanTargets); answers the endpoints it parked a delivery for in `parked`.
 */
export const deletePlantSql = (t: Tables) => `
  WITH filters AS (
    SELECT ${filtersCurrent(t, 3, 7)} AS current
  ), targets AS MATERIALIZED (${fanTargets(t, 3, 2, 7)}
  ), deleted AS (
    DELETE FROM ${t.plants} WHERE tenant = $1 AND id = $2 AND ${WRITABLE}
    RETURNING id
  ), fanned AS (${fanOut(t, 'deleted', 3, 6)})
  SELECT EXISTS (SELECT FROM deleted) AS deleted, EXISTS (SELECT FROM fanned WHERE NOT parked) AS queued, NOT (${WRITABLE}) AS stale,
    ${PARKED_ENDPOINTS}`;

/** Parameters: tenant, id. */
export const selectPlantSql = (t: Tables) => `SELECT ${COLUMNS} FROM ${t.plants} WHERE tenant = $1 AND id = $2`;

/** Parameters: tenant, lowest id, highest id, limit. */
export const listPlantsSql = (t: Tables) => `
  SELECT ${COLUMNS} FROM ${t.plants}
  WHERE tenant = $1 AND id >= $2 AND id <= $3
  ORDER BY id LIMIT $4`;

/** The plants of each wanted tag (parameter $2, a text[]), at most $cap each, in id order. */
const taggedBranches = (t: Tables, cap: string) => `
  unnest($2::text[]) AS wanted (tag)
  CROSS JOIN LATERAL (
    SELECT ${COLUMNS} FROM ${t.plants}
    WHERE tenant = $1 AND tag = wanted.tag AND id >= $3 AND id <= $4
    ORDER BY id LIMIT ${cap}
  ) AS p`;

/** Parameters: tenant, distinct tags, lowest id, highest id, limit. */
export const listTaggedPlantsSql = (t: Tables) => `
  SELECT p.* FROM ${taggedBranches(t, '$5')}
  ORDER BY p.id LIMIT $5`;

/** Parameters: tenant, lowest id, offset. */
export const idAtOffsetSql = (t: Tables) => `
  SELECT id FROM ${t.plants}
  WHERE tenant = $1 AND id >= $2
  ORDER BY id OFFSET $3 LIMIT 1`;

/** Parameters: tenant, distinct tags, lowest id, highest id, offset (each tag reads offset + 1 plants). */
export const idAtTaggedOffsetSql = (t: Tables) => `
  SELECT p.id FROM ${taggedBranches(t, '($5::bigint + 1)')}
  ORDER BY p.id OFFSET $5 LIMIT 1`;
