/*
 * SQL of the plant repository (better-sqlite3 parameters). Reads are run as
 * raw rows (the plant's columns in field order) with safe integers, so ids
 * stay exact bigints.
 */

import { PLANT_FIELD_NAMES, PLANT_FIELDS, type PlantField } from '@plant-store/core/adapter';
import { BOUND_LIMIT } from './bound-limit.js';
import { joinedDueAt, joinedPlace, lineOfTarget } from './delivery-lines.js';

/** The plant's columns (one per field, of its name), in field order. */
const COLUMNS = PLANT_FIELD_NAMES.join(', ');

/** Parameters: tenant, then the plant's columns (see `plantColumns`). Inserts nothing when the id is taken (the create then reads the stored plant). */
export const INSERT_PLANT = `INSERT INTO plants (tenant, ${COLUMNS}) VALUES (?${', ?'.repeat(PLANT_FIELD_NAMES.length)}) ON CONFLICT DO NOTHING`;

/** Parameters: tenant, id. */
export const SELECT_PLANT = `SELECT ${COLUMNS} FROM plants WHERE tenant = ? AND id = ?`;

/** Parameters: tenant, id. */
export const DELETE_PLANT = 'DELETE FROM plants WHERE tenant = ? AND id = ?';

/**
 * One delivery of an endpoint event per endpoint of the tenant subscribed to it, in endpoint id order: pending to an enabled one
 * (to an endpoint that orders per plant, in the plant's line: held while another of the line is pending, see INSERT_DELIVERY_IN_LINE),
 * parked to a disabled one (no due time, no place in a line, its ordering key kept for a replay).
 * Positional parameters, see {@link FanOutParameters} (positional binding costs less than named: no object per write). Ids are `msg_` and the 32 hex
 * digits of a random version 4 UUID, as core's `newMessageId` makes them: SQLite's randomblob with the version and variant bits set. The endpoints and their
 * random bytes are materialized first, so each row's bytes are drawn once however often the id reads them.
 * The plant write runs it inside its transaction: one statement queues the deliveries to every endpoint `endpoints` (an SQL condition) selects.
 * Which disabled endpoints it parks for, the write learns from FAN_OUT_TARGETS (filtered-fan-out.ts), and then applies the bound to them.
 */
export const fanOutSql = (endpoints: string) => `
  WITH targets AS MATERIALIZED (
    SELECT id, lower(hex(randomblob(16))) AS r, CASE WHEN ordering = 'plant' THEN ? END AS line, status = 'enabled' AS open FROM webhook_endpoints
    WHERE tenant = ? AND EXISTS (SELECT 1 FROM json_each(event_types) WHERE value = ?) AND ${endpoints}
  )
  INSERT INTO webhook_deliveries
    (id, tenant, endpoint_id, event_type, payload, traceparent, status, attempt_count, next_attempt_at, created_at, updated_at, ordering_key, line_seq)
  SELECT 'msg_' || substr(r, 1, 12) || '4' || substr(r, 14, 3)
      || substr('89ab', (instr('0123456789abcdef', substr(r, 17, 1)) - 1) % 4 + 1, 1) || substr(r, 18, 15),
    ?, id, ?, ?, ?, CASE WHEN open THEN 'pending' ELSE 'parked' END, 0, CASE WHEN open THEN ${joinedDueAt('last', '?')} END, ?, ?,
    line, CASE WHEN open THEN ${joinedPlace('line', 'last')} END
  FROM (SELECT targets.*, CASE WHEN targets.open THEN ${lineOfTarget('targets.id', 'targets.line')} END AS last FROM targets) ORDER BY id`;

/** The fan-out to endpoints without a filter; those with one are matched in JavaScript first (see filtered-fan-out.ts). */
export const FAN_OUT = fanOutSql('filter IS NULL');

/**
 * The parameters of {@link FAN_OUT}, in order: the plant id (the line of endpoints that order per plant), tenant and event type (twice: the endpoints,
 * then the rows), payload, traceparent, at (first due time, created at, updated at: a parked delivery's too).
 */
export type FanOutParameters = [
  plantId: string,
  tenant: string,
  eventType: string,
  tenant: string,
  eventType: string,
  payload: string,
  traceparent: string | null,
  dueAt: number,
  createdAt: number,
  updatedAt: number,
];

/*
 * SQL of the plant listings, by number of tag filters and whether the id
 * range has an upper end. Each shape is prepared on its first use and reused
 * (see SqlitePlantRepository).
 *
 * The lower end of the id range is always bound (INT64_MIN when there is no
 * `after`); the upper end (`until`) only when there is one: an open range is
 * what every page and batch without `until` reads, and leaving out its bound
 * makes the most frequent query measurably cheaper. Several tags are one
 * index range each on (tenant, tag, id), merged with UNION ALL: every branch
 * reads at most `limit` rows already in id order, so a page costs
 * O(tags × limit) however many plants carry those tags, where `tag IN (…)`
 * would sort them all.
 */

/** The shape of a listing query. */
export interface QueryShape {
  /** Distinct tag filters (0 = none). */
  readonly tagCount: number;
  /** Whether the id range has an upper end (`until`). */
  readonly bounded: boolean;
}

function branch(columns: string, tagged: boolean, bounded: boolean, end: string): string {
  // Pinned to the tag index: without statistics the planner would walk the
  // primary key and test every plant's tag, O(n) for a rare tag.
  const source = tagged ? 'plants INDEXED BY plants_tenant_tag_id WHERE tenant = ? AND tag = ?' : 'plants WHERE tenant = ?';
  const range = bounded ? 'id >= ? AND id <= ?' : 'id >= ?';
  return `SELECT ${columns} FROM ${source} AND ${range} ORDER BY id ${end}`;
}

function merged(columns: string, { tagCount, bounded }: QueryShape, end: string): string {
  const branches = Array.from({ length: tagCount }, () => `SELECT ${columns} FROM (${branch(columns, true, bounded, `LIMIT ${BOUND_LIMIT}`)})`);
  return `${branches.join(' UNION ALL ')} ORDER BY id ${end}`;
}

function query(columns: string, shape: QueryShape, end: string): string {
  return shape.tagCount <= 1 ? branch(columns, shape.tagCount === 1, shape.bounded, end) : merged(columns, shape, end);
}

/** Parameters: see {@link queryParameters}; `last` is the limit. */
export function listPlantsSql(shape: QueryShape): string {
  return query(COLUMNS, shape, `LIMIT ${BOUND_LIMIT}`);
}

/**
 * A plant's wire form, built from the field table by SQLite's json_object
 * (int64 exact, text escaped as JSON.stringify does): one json_object per
 * combination of present optional fields, as a CASE, so an absent one is
 * left out. A page aggregates these JSON values with json_group_array,
 * which appends them as they are; a printf per plant joined with
 * group_concat formats and copies every member once more.
 */
function plantJsonSql(): string {
  const fields = Object.entries(PLANT_FIELDS) as [string, PlantField][];
  const optional = fields.filter(([, field]) => field.optional).map(([name]) => name);
  const objectOf = (present: readonly string[]) =>
    `json_object(${fields
      .filter(([name, field]) => !field.optional || present.includes(name))
      .map(([name]) => `'${name}', ${name}`)
      .join(', ')})`;
  if (optional.length === 0) return objectOf([]);
  const combinations = optional.reduce<string[][]>((sets, name) => sets.flatMap((set) => [set, [...set, name]]), [[]]);
  const branches = combinations.map((present) => {
    const condition = optional.map((name) => `${name} IS ${present.includes(name) ? 'NOT NULL' : 'NULL'}`).join(' AND ');
    return `WHEN ${condition} THEN ${objectOf(present)}`;
  });
  return `CASE ${branches.join(' ')} END`;
}
const PLANT_JSON = plantJsonSql();

/** Parameters: tenant, id. The plant's wire form as JSON text (see PLANT_JSON); no row when the tenant has none. */
export const SELECT_PLANT_JSON = `SELECT ${PLANT_JSON} FROM plants WHERE tenant = ? AND id = ?`;

/**
 * A page of the listing of {@link listPlantsSql} as one row: the JSON array
 * of its plants, built by SQLite, their last id, their count, and the id of
 * the plant just past the page ({@link idAtOffsetSql} at offset `limit`),
 * NULL when none matches: whether more remain. The rows reach the aggregate
 * in the listing's id order (a subquery with a LIMIT is read in its order,
 * not flattened). Parameters: those of {@link idAtOffsetSql} (offset
 * `limit`), then those of {@link listPlantsSql} (last `limit`).
 *
 * Why a second look at the index instead of reading one row more and
 * numbering the rows (`row_number() OVER` with a `FILTER` on the
 * aggregates): the window materialises every row it numbers, and costs
 * about 27 µs against 19 µs for a page of 20, and 67 against 34 µs for a
 * page of 100 (measured on 10,000 plants). Walking `limit + 1` index
 * entries for the next id is cheap next to building the page's JSON.
 */
export function listPlantsJsonSql(shape: QueryShape): string {
  return `SELECT json_group_array(${PLANT_JSON}), max(id), count(*), (${idAtOffsetSql(shape)}) FROM (${listPlantsSql(shape)})`;
}

/** Parameters: see {@link queryParameters}; `last` is the offset and each branch reads offset + 1 rows. */
export function idAtOffsetSql(shape: QueryShape): string {
  return query('id', shape, 'LIMIT 1 OFFSET ?');
}

/**
 * Positional parameters of the statements above: (tenant, [tag,] low[, high])
 * per branch, each merged branch followed by its own row cap, then `last`.
 * `high` is bound only when given (a bounded shape).
 */
export function queryParameters(tenant: string, tags: readonly string[], low: bigint, high: bigint | undefined, branchCap: number, last: number): unknown[] {
  if (tags.length === 0) return high === undefined ? [tenant, low, last] : [tenant, low, high, last];
  const parameters: unknown[] = [];
  for (const tag of tags) {
    parameters.push(tenant, tag, low);
    if (high !== undefined) parameters.push(high);
    if (tags.length > 1) parameters.push(branchCap);
  }
  parameters.push(last);
  return parameters;
}
