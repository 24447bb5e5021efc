import { describe, expect, it } from 'vitest';
import { INT64_MAX, INT64_MIN } from '@plant-store/core/adapter';
import { postgresAvailable, withClient } from '../../../test/support/postgres.js';
import { explainedPlan, seededSchema } from '../../../test/support/postgres-plan.js';
import { idAtOffsetSql, idAtTaggedOffsetSql, listPlantsSql, listTaggedPlantsSql } from './plant-queries.js';

describe.skipIf(!postgresAvailable)('plant listing SQL on a large table', () => {
  const { tables, storage } = seededSchema(async (client, tables) => {
    // Two tenants of 100,000 plants; every other plant carries one of 50 tags.
    await client.query(`
      INSERT INTO ${tables.plants} (tenant, id, name, tag)
      SELECT tenant, i, 'p' || i, CASE WHEN i % 2 = 0 THEN 'tag' || (i % 50) END
      FROM unnest(ARRAY['t', 'u']) AS tenant, generate_series(1, 100000) AS i`);
    await client.query(`ANALYZE ${tables.plants}`);
  });

  const plan = (text: string, parameters: unknown[]) =>
    withClient((client) =>
      explainedPlan(
        client,
        'FORMAT JSON',
        text,
        parameters.map((p) => (typeof p === 'bigint' ? String(p) : p)),
      ),
    );

  it('reads a page in order from the primary key (tenant, id): no scan of the table, no sort', async () => {
    const steps = await plan(listPlantsSql(tables), ['t', 5000n, INT64_MAX, 500]);
    expect(steps.some((node) => node['Index Name'] === 'plants_pk')).toBe(true);
    expect(steps.map((node) => node['Node Type'])).not.toContain('Seq Scan');
    expect(steps.map((node) => node['Node Type'])).not.toContain('Sort');
    const offset = await plan(idAtOffsetSql(tables), ['t', INT64_MIN, 1000]);
    expect(offset.some((node) => node['Index Name'] === 'plants_pk')).toBe(true);
    expect(offset.map((node) => node['Node Type'])).not.toContain('Seq Scan');
  });

  it('reads each wanted tag from the (tenant, tag, id) index, never scanning the table', async () => {
    for (const [text, parameters] of [
      [listTaggedPlantsSql(tables), ['t', ['tag2', 'tag4', 'tag6'], INT64_MIN, INT64_MAX, 500]],
      [idAtTaggedOffsetSql(tables), ['t', ['tag2', 'tag4'], INT64_MIN, INT64_MAX, 700]],
    ] as const) {
      const steps = await plan(text, [...parameters]);
      expect(steps.some((node) => node['Index Name'] === 'plants_tenant_tag_id')).toBe(true);
      expect(steps.map((node) => node['Node Type'])).not.toContain('Seq Scan');
    }
  });

  it('returns the same pages as a plain filter would', async () => {
    const page = await storage().plants.list('t', { tags: ['tag2', 'tag4'], after: 1000n, limit: 5 });
    expect(page.map((p) => p.id)).toEqual([1002n, 1004n, 1052n, 1054n, 1102n]);
    expect(await storage().plants.idAtOffset('t', { tags: ['tag2', 'tag4'], offset: 4 })).toBe(102n);
    expect((await storage().plants.list('u', { after: 99_998n, limit: 5 })).map((p) => p.id)).toEqual([99_999n, 100_000n]);
  });
});
