import type pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import type { Storage } from '@plant-store/core/adapter';
import { postgresStorage } from '../../packages/storage-postgres/src/postgres-storage.js';
import { tablesIn, type Tables } from '../../packages/storage-postgres/src/tables.js';
import { TEST_DATABASE_URL, testSchemas, withClient } from './postgres.js';

/** A node of an EXPLAIN (FORMAT JSON) plan; the actual figures only with ANALYZE. */
export interface PlanNode {
  readonly 'Node Type': string;
  readonly 'Index Name'?: string;
  readonly 'Actual Rows'?: number;
  readonly 'Actual Loops'?: number;
  readonly 'Rows Removed by Filter'?: number;
  readonly 'Rows Removed by Index Recheck'?: number;
  readonly Plans?: readonly PlanNode[];
}

/** Every node of the plan that `EXPLAIN (…, FORMAT JSON) <text>` returned, the root first. */
export async function explainedPlan(client: pg.Client, explain: string, text: string, parameters: unknown[]): Promise<PlanNode[]> {
  const { rows } = await client.query(`EXPLAIN (${explain}) ${text}`, parameters);
  return nodesOf((rows[0] as { 'QUERY PLAN': [{ Plan: PlanNode }] })['QUERY PLAN'][0].Plan);
}

function nodesOf(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(nodesOf)];
}

/** The schema a plan suite explains its statements on, and the storage that migrated it. */
export interface SeededSchema {
  readonly tables: Tables;
  /** Open from the suite's `beforeAll` to its `afterAll`. */
  storage(): Storage;
}

/**
 * A schema of the suite's own, migrated by the storage adapter and filled
 * by `seed` (raw SQL, and the ANALYZE the seed wants its plans made with)
 * before the suite's tests; closed and dropped after them.
 */
export function seededSchema(seed: (client: pg.Client, tables: Tables) => Promise<void>): SeededSchema {
  const schemas = testSchemas();
  const schema = schemas.next();
  const tables = tablesIn(schema);
  let storage: Storage | undefined;
  beforeAll(async () => {
    storage = await postgresStorage({ connectionString: TEST_DATABASE_URL, schema });
    await withClient((client) => seed(client, tables));
  });
  afterAll(async () => {
    await storage?.close();
    await schemas.dropAll();
  });
  return {
    tables,
    storage() {
      if (storage === undefined) throw new Error('the seeded schema is open from beforeAll to afterAll only');
      return storage;
    },
  };
}
