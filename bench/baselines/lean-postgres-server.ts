// Lean PostgreSQL baseline: what a hand-written node:http + pg server does at
// the least, on the schema the storage adapter migrated (same tables and
// indexes). A create is one statement (plant and outbox rows); list and get
// bodies are built by PostgreSQL, with 64-bit ids exact.
// Run: node lean-postgres-server.js serve --port 0 --database-url URL --db-schema S --db-pool N --tokens t=tenant
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { LeanStore } from './lean-listener.js';
import { leanServe, type LeanServeFlags } from './lean-serve.js';

// The slice of pg used here, resolved from the repository: this file runs transpiled from a temporary folder.
interface Pool {
  query<Row>(text: string, values: unknown[]): Promise<{ rows: Row[] }>;
  on(event: 'error', listener: () => void): void;
  end(): Promise<void>;
}
type PgModule = { Pool: new (config: Record<string, unknown>) => Pool; escapeIdentifier(name: string): string };

const PLANT_JSON = `'{"id":' || id || ',"name":' || to_json(name) || CASE WHEN tag IS NULL THEN '' ELSE ',"tag":' || to_json(tag) END || '}'`;

async function leanPostgresStore(flags: LeanServeFlags): Promise<LeanStore & { close(): Promise<void> }> {
  if (!flags.databaseUrl) throw new Error('--database-url is required');
  const pg = createRequire(join(process.cwd(), 'packages/storage-postgres/package.json'))('pg') as PgModule;
  const pool = new pg.Pool({ connectionString: flags.databaseUrl, max: flags.dbPool, application_name: 'plant-store-lean-baseline' });
  pool.on('error', () => {});
  const schema = pg.escapeIdentifier(flags.dbSchema);
  const create = `WITH p AS (INSERT INTO ${schema}.plants (tenant, id, name, tag) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING RETURNING id),
    d AS (INSERT INTO ${schema}.webhook_deliveries (id, tenant, endpoint_id, event_type, payload, status, next_attempt_at, created_at, updated_at)
      SELECT e.id, $1, e.url, 'plant.created', $5, 'pending', $6, $6, $6 FROM p, unnest($7::text[], $8::text[]) AS e (id, url))
    SELECT count(*)::int AS created FROM p`;
  const select = `SELECT ${PLANT_JSON} AS json FROM ${schema}.plants WHERE tenant = $1 AND id = $2`;
  // Reads limit + 1 rows: the page's JSON, its last id and whether a row follows, in one statement.
  const page = `SELECT '[' || coalesce(string_agg(json, ',' ORDER BY id) FILTER (WHERE n <= $3), '') || ']' AS body,
      max(id) FILTER (WHERE n <= $3)::text AS last, count(*)::int AS count
    FROM (SELECT id, ${PLANT_JSON} AS json, row_number() OVER (ORDER BY id) AS n
      FROM ${schema}.plants WHERE tenant = $1 AND id > $2 ORDER BY id LIMIT $3 + 1) AS rows`;
  const get = async (tenant: string, id: bigint) => (await pool.query<{ json: string }>(select, [tenant, id])).rows[0]?.json;
  return {
    async create(tenant, id, name, tag, body) {
      const urls = flags.webhookUrls;
      const parameters = [tenant, id, name, tag ?? null, body, Date.now(), urls.map(() => randomUUID()), urls];
      const [row] = (await pool.query<{ created: number }>(create, parameters)).rows;
      return row!.created > 0 ? undefined : get(tenant, BigInt(id));
    },
    get,
    async page(tenant, after, limit) {
      const [row] = (await pool.query<{ body: string; last: string | null; count: number }>(page, [tenant, after ?? -(2n ** 63n), limit])).rows;
      return { body: row!.body, last: row!.count > limit ? (row!.last ?? undefined) : undefined };
    },
    delete: async (tenant, id) => (await pool.query(`DELETE FROM ${schema}.plants WHERE tenant = $1 AND id = $2 RETURNING 1`, [tenant, id])).rows.length > 0,
    close: () => pool.end(),
  };
}

await leanServe('lean-postgres baseline', leanPostgresStore);
