/*
 * SQL of the plant listings, by number of tag filters. Each shape is
 * prepared once per storage and reused (see SqlitePlantRepository).
 *
 * The id range is always bound as [low, high], so one statement serves every
 * combination of `after` and `until`. Several tags are one index range each
 * on (tenant, tag, id), merged with UNION ALL: every branch reads at most
 * `limit` rows already in id order, so a page costs O(tags × limit) however
 * many plants carry those tags, where `tag IN (…)` would sort them all.
 */

const RANGE = 'id >= ? AND id <= ? ORDER BY id';

function branch(columns: string, tagged: boolean, end: string): string {
  // Pinned to the tag index: without statistics the planner would walk the
  // primary key and test every plant's tag, O(n) for a rare tag.
  const source = tagged ? 'plants INDEXED BY plants_tenant_tag_id WHERE tenant = ? AND tag = ?' : 'plants WHERE tenant = ?';
  return `SELECT ${columns} FROM ${source} AND ${RANGE} ${end}`;
}

function merged(columns: string, tagCount: number, end: string): string {
  const branches = Array.from({ length: tagCount }, () => `SELECT ${columns} FROM (${branch(columns, true, 'LIMIT ?')})`);
  return `${branches.join(' UNION ALL ')} ORDER BY id ${end}`;
}

/** Parameters: see {@link queryParameters}; `last` is the limit. */
export function listPlantsSql(tagCount: number): string {
  const columns = 'id, name, tag';
  return tagCount <= 1 ? branch(columns, tagCount === 1, 'LIMIT ?') : merged(columns, tagCount, 'LIMIT ?');
}

/** Parameters: see {@link queryParameters}; `last` is the offset and each branch reads offset + 1 rows. */
export function idAtOffsetSql(tagCount: number): string {
  return tagCount <= 1 ? branch('id', tagCount === 1, 'LIMIT 1 OFFSET ?') : merged('id', tagCount, 'LIMIT 1 OFFSET ?');
}

/**
 * Positional parameters of the statements above: (tenant, [tag,] low, high)
 * per branch, each merged branch followed by its own row cap, then `last`.
 */
export function queryParameters(
  tenant: string,
  tags: readonly string[],
  low: bigint,
  high: bigint,
  branchCap: number,
  last: number,
): unknown[] {
  if (tags.length === 0) return [tenant, low, high, last];
  if (tags.length === 1) return [tenant, tags[0], low, high, last];
  const parameters: unknown[] = [];
  for (const tag of tags) parameters.push(tenant, tag, low, high, branchCap);
  parameters.push(last);
  return parameters;
}
