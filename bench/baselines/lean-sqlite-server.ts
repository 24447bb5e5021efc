// Lean SQLite baseline: what a hand-written node:http + better-sqlite3
// server does at the least. The plants table is the service's (same key,
// STRICT, WITHOUT ROWID, tag index); the outbox has only its rowid key;
// list and get bodies are built by SQLite (json_object keeps 64-bit ids exact).
// Run: node lean-sqlite-server.js serve --port 0 --db FILE --tokens t=tenant
import { randomUUID } from 'node:crypto';
import type { LeanStore } from './lean-listener.js';
import { leanServe } from './lean-serve.js';
import { openSqlite } from './sqlite-driver.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS plants (
  tenant TEXT NOT NULL,
  id INTEGER NOT NULL,
  name TEXT NOT NULL,
  tag TEXT,
  CONSTRAINT plants_pk PRIMARY KEY (tenant, id)
) STRICT, WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS plants_tenant_tag_id ON plants (tenant, tag, id) WHERE tag IS NOT NULL;
CREATE TABLE IF NOT EXISTS outbox (
  id TEXT NOT NULL,
  tenant TEXT NOT NULL,
  endpoint TEXT NOT NULL,
  event_type TEXT NOT NULL,
  payload TEXT NOT NULL,
  created_at INTEGER NOT NULL
) STRICT;
`;

const PLANT_JSON = "CASE WHEN tag IS NULL THEN json_object('id', id, 'name', name) ELSE json_object('id', id, 'name', name, 'tag', tag) END";

function leanSqliteStore(file: string, webhookUrls: readonly string[]): LeanStore & { close(): void } {
  const db = openSqlite(file);
  db.exec(SCHEMA);
  const insertPlant = db.prepare('INSERT INTO plants (tenant, id, name, tag) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING');
  const insertOutbox = db.prepare("INSERT INTO outbox (id, tenant, endpoint, event_type, payload, created_at) VALUES (?, ?, ?, 'plant.created', ?, ?)");
  const selectOne = db.prepare(`SELECT ${PLANT_JSON} FROM plants WHERE tenant = ? AND id = ?`).pluck(true);
  // Reads limit + 1 rows: the page's JSON, its last id and whether a row follows, in one statement.
  const selectPage = db
    .prepare(
      `SELECT json_group_array(${PLANT_JSON}) FILTER (WHERE n <= @limit), max(id) FILTER (WHERE n <= @limit), count(*)
       FROM (SELECT id, name, tag, row_number() OVER (ORDER BY id) AS n FROM plants WHERE tenant = @tenant AND id > @after ORDER BY id LIMIT @limit + 1)`,
    )
    .raw(true);
  const deleteOne = db.prepare('DELETE FROM plants WHERE tenant = ? AND id = ?');
  const create = db.transaction((tenant: string, id: number, name: string, tag: string | undefined, body: string): string | undefined => {
    if (insertPlant.run(tenant, id, name, tag ?? null).changes === 0) return selectOne.get(tenant, id) as string;
    const now = Date.now();
    for (const url of webhookUrls) insertOutbox.run(randomUUID(), tenant, url, body, now);
    return undefined;
  }).immediate;
  return {
    create,
    get: (tenant, id) => selectOne.get(tenant, id) as string | undefined,
    page(tenant, after, limit) {
      // Without a cursor, from the lowest id on (a plant with id INT64_MIN itself is not listed: good enough here).
      const [body, last, count] = selectPage.get({ tenant, limit, after: after ?? -(2n ** 63n) }) as [string, bigint | null, bigint];
      return { body, last: count > BigInt(limit) ? (last ?? undefined) : undefined };
    },
    delete: (tenant, id) => deleteOne.run(tenant, id).changes > 0,
    close: () => db.close(),
  };
}

await leanServe('lean-sqlite baseline', async (flags) => leanSqliteStore(flags.db ?? 'lean-baseline.db', flags.webhookUrls));
