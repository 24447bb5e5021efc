import type pg from 'pg';

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
