// Raw SQLite baseline: node:http + better-sqlite3, prepared statements, one
// transaction per create (plant + outbox rows), WAL + synchronous=NORMAL.
// Run: node raw-sqlite-server.js serve --port 0 --db FILE --tokens t=tenant
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { rawServe } from './raw-serve.js';
import type { RawDelivery, RawPlant, RawStore } from './raw-store.js';

// The slice of better-sqlite3 used here (it is a dependency of
// storage-sqlite, not of the root, so its types are not visible from bench/).
interface Statement {
  run(...params: unknown[]): { changes: number };
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  raw(toggle?: boolean): Statement;
}
interface Database {
  pragma(source: string): unknown;
  exec(source: string): void;
  prepare(source: string): Statement;
  defaultSafeIntegers(toggle?: boolean): Database;
  transaction<A extends unknown[], R>(fn: (...args: A) => R): ((...args: A) => R) & { immediate: (...args: A) => R };
  close(): void;
}
type DatabaseConstructor = new (file: string) => Database;

/** A raw row: [id, name, tag]. */
type PlantRow = [bigint, string, string | null];

function loadDriver(): DatabaseConstructor {
  const require = createRequire(import.meta.url);
  const path =
    process.env.BENCH_BETTER_SQLITE3 ??
    createRequire(join(process.cwd(), 'packages/storage-sqlite/package.json')).resolve('better-sqlite3');
  return require(path) as DatabaseConstructor;
}

const toPlant = ([id, name, tag]: PlantRow): RawPlant => (tag === null ? { id, name } : { id, name, tag });

/**
 * The service's schema (storage-sqlite migration 001) with the same indexes,
 * so both pay for the same B-tree writes per create and delete: plants keyed
 * (tenant, id) WITHOUT ROWID STRICT plus the partial tag index, and the
 * outbox with its due-time and created-at indexes and the attempt log.
 */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS plants (
  tenant TEXT NOT NULL,
  id INTEGER NOT NULL,
  name TEXT NOT NULL,
  tag TEXT,
  CONSTRAINT plants_pk PRIMARY KEY (tenant, id)
) STRICT, WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS plants_tenant_tag_id ON plants (tenant, tag, id) WHERE tag IS NOT NULL;
CREATE TABLE IF NOT EXISTS webhook_deliveries (
  id TEXT PRIMARY KEY,
  tenant TEXT NOT NULL,
  endpoint TEXT NOT NULL,
  event_type TEXT NOT NULL,
  payload TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
  attempt_count INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER,
  lease_owner TEXT,
  lease_expires_at INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT;
CREATE INDEX IF NOT EXISTS webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX IF NOT EXISTS webhook_deliveries_created_at ON webhook_deliveries (created_at);
CREATE TABLE IF NOT EXISTS webhook_attempts (
  delivery_id TEXT NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
  attempt INTEGER NOT NULL,
  at INTEGER NOT NULL,
  duration_ms INTEGER NOT NULL,
  status_code INTEGER,
  error TEXT,
  CONSTRAINT webhook_attempts_pk PRIMARY KEY (delivery_id, attempt)
) STRICT, WITHOUT ROWID;
`;

function rawSqliteStore(file: string): RawStore & { close(): void } {
  const Database = loadDriver();
  const db = new Database(file);
  // The service's pragmas: bigint integers, busy timeout, WAL, synchronous=NORMAL, foreign keys.
  db.defaultSafeIntegers(true);
  db.pragma('busy_timeout = 5000');
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.exec(SCHEMA);
  const insertPlant = db.prepare('INSERT INTO plants (tenant, id, name, tag) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING');
  const insertDelivery = db.prepare(
    `INSERT INTO webhook_deliveries
       (id, tenant, endpoint, event_type, payload, status, attempt_count, next_attempt_at, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, 'pending', 0, ?, ?, ?)`,
  );
  const selectOne = db.prepare('SELECT id, name, tag FROM plants WHERE tenant = ? AND id = ?').raw(true);
  const selectAfter = db.prepare('SELECT id, name, tag FROM plants WHERE tenant = ? AND id > ? ORDER BY id LIMIT ?').raw(true);
  const selectFirst = db.prepare('SELECT id, name, tag FROM plants WHERE tenant = ? ORDER BY id LIMIT ?').raw(true);
  const deleteOne = db.prepare('DELETE FROM plants WHERE tenant = ? AND id = ?');

  // IMMEDIATE, like the service: the write lock is taken up front.
  const create = db.transaction((tenant: string, plant: RawPlant, deliveries: readonly RawDelivery[]) => {
    if (insertPlant.run(tenant, plant.id, plant.name, plant.tag ?? null).changes === 0) {
      return toPlant(selectOne.get(tenant, plant.id) as PlantRow);
    }
    for (const d of deliveries) {
      insertDelivery.run(d.id, d.tenant, d.endpoint, d.eventType, d.payload, d.createdAt, d.createdAt, d.createdAt);
    }
    return undefined;
  }).immediate;

  return {
    create,
    get(tenant, id) {
      const row = selectOne.get(tenant, id) as PlantRow | undefined;
      return row && toPlant(row);
    },
    list(tenant, after, tags, limit) {
      // Tag filters are not benchmarked; a filtered read keeps scanning the same index.
      const rows: PlantRow[] = [];
      let cursor = after;
      while (rows.length < limit) {
        const page = (cursor === undefined ? selectFirst.all(tenant, limit) : selectAfter.all(tenant, cursor, limit)) as PlantRow[];
        for (const row of page) if (!tags || (row[2] !== null && tags.includes(row[2]))) rows.push(row);
        if (page.length < limit || !tags) break;
        cursor = page[page.length - 1]![0];
      }
      if (rows.length > limit) rows.length = limit;
      return rows.map(toPlant);
    },
    delete(tenant, id) {
      return deleteOne.run(tenant, id).changes > 0;
    },
    close() {
      db.close();
    },
  };
}

await rawServe('raw-sqlite baseline', (flags) => rawSqliteStore(flags.db ?? 'raw-baseline.db'));
