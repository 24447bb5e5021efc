// Raw SQLite baseline: node:http + better-sqlite3, prepared statements, one
// transaction per create (plant, outbox rows, fan-out to the tenant's
// endpoints), WAL + synchronous=NORMAL.
// Run: node raw-sqlite-server.js serve --port 0 --db FILE --tokens t=tenant
import { randomUUID } from 'node:crypto';
import { endpointId } from './raw-endpoint-id.js';
import { plantJson } from './raw-plant-json.js';
import { rawServe } from './raw-serve.js';
import { openSqlite } from './sqlite-driver.js';
import type { RawDelivery, RawPlant, RawStore } from './raw-store.js';

/** A raw row: [id, name, tag]. */
type PlantRow = [bigint, string, string | null];

const toPlant = ([id, name, tag]: PlantRow): RawPlant => (tag === null ? { id, name } : { id, name, tag });

/**
 * The service's schema as its migrations (storage-sqlite, 001 to 003) leave
 * it, with the same indexes, so both pay for the same B-tree writes per
 * create and delete: plants keyed (tenant, id) WITHOUT ROWID STRICT plus the
 * partial tag index, the outbox with its due-time, created-at, tenant and
 * endpoint indexes, the attempt log, and the tenants' webhook endpoints.
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
  endpoint_id TEXT NOT NULL,
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
CREATE INDEX IF NOT EXISTS webhook_deliveries_due ON webhook_deliveries (next_attempt_at, created_at) WHERE status = 'pending';
CREATE INDEX IF NOT EXISTS webhook_deliveries_created_at ON webhook_deliveries (created_at);
CREATE INDEX IF NOT EXISTS webhook_deliveries_tenant_created_at ON webhook_deliveries (tenant, created_at);
CREATE INDEX IF NOT EXISTS webhook_deliveries_endpoint_status ON webhook_deliveries (endpoint_id, status);
CREATE INDEX IF NOT EXISTS webhook_deliveries_endpoint_due ON webhook_deliveries (endpoint_id, next_attempt_at) WHERE status = 'pending';
CREATE TABLE IF NOT EXISTS webhook_attempts (
  delivery_id TEXT NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
  attempt INTEGER NOT NULL,
  at INTEGER NOT NULL,
  duration_ms INTEGER NOT NULL,
  status_code INTEGER,
  error TEXT,
  interrupted INTEGER NOT NULL DEFAULT 0 CHECK (interrupted IN (0, 1)),
  CONSTRAINT webhook_attempts_pk PRIMARY KEY (delivery_id, attempt)
) STRICT, WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS webhook_endpoints (
  id TEXT PRIMARY KEY,
  tenant TEXT NOT NULL,
  url TEXT NOT NULL,
  event_types TEXT NOT NULL,
  description TEXT,
  rate_limit INTEGER,
  status TEXT NOT NULL CHECK (status IN ('enabled', 'disabled')),
  disabled_reason TEXT,
  secret TEXT NOT NULL,
  previous_secret TEXT,
  previous_secret_expires_at INTEGER,
  failing_since INTEGER,
  exhausted_at INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT;
CREATE INDEX IF NOT EXISTS webhook_endpoints_tenant_id ON webhook_endpoints (tenant, id);
`;

function rawSqliteStore(file: string, webhookUrls: readonly string[]): RawStore & { close(): void } {
  const db = openSqlite(file);
  // And the service's foreign keys.
  db.pragma('foreign_keys = ON');
  db.exec(SCHEMA);
  const insertPlant = db.prepare('INSERT INTO plants (tenant, id, name, tag) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING');
  const insertDelivery = db.prepare(
    `INSERT INTO webhook_deliveries
       (id, tenant, endpoint_id, event_type, payload, status, attempt_count, next_attempt_at, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, 'pending', 0, ?, ?, ?)`,
  );
  // The service's fan-out to a tenant's endpoints (storage-sqlite's `matching`), run in every plant write.
  const matchingEndpoints = db
    .prepare(
      `SELECT id FROM webhook_endpoints
       WHERE tenant = ? AND status = 'enabled' AND EXISTS (SELECT 1 FROM json_each(event_types) WHERE value = ?)
       ORDER BY id`,
    )
    .raw(true);
  const endpoints = new Map(webhookUrls.map((url) => [url, endpointId(url)]));
  const queueEvent = (tenant: string, eventType: string, payload: string) => {
    const createdAt = Date.now();
    for (const [endpoint] of matchingEndpoints.all(tenant, eventType) as [string][]) {
      insertDelivery.run(randomUUID(), tenant, endpoint, eventType, payload, createdAt, createdAt, createdAt);
    }
  };
  const selectOne = db.prepare('SELECT id, name, tag FROM plants WHERE tenant = ? AND id = ?').raw(true);
  // The limit behind a CAST, as the service writes it: SQLite plans a statement with a bare `LIMIT ?` again at every run.
  const selectAfter = db.prepare('SELECT id, name, tag FROM plants WHERE tenant = ? AND id > ? ORDER BY id LIMIT CAST(? AS INTEGER)').raw(true);
  const selectFirst = db.prepare('SELECT id, name, tag FROM plants WHERE tenant = ? ORDER BY id LIMIT CAST(? AS INTEGER)').raw(true);
  const deleteOne = db.prepare('DELETE FROM plants WHERE tenant = ? AND id = ?');

  // IMMEDIATE, like the service: the write lock is taken up front.
  const create = db.transaction((tenant: string, plant: RawPlant, deliveries: readonly RawDelivery[]) => {
    if (insertPlant.run(tenant, plant.id, plant.name, plant.tag ?? null).changes === 0) {
      return toPlant(selectOne.get(tenant, plant.id) as PlantRow);
    }
    for (const d of deliveries) {
      const endpoint = endpoints.get(d.endpoint) ?? endpointId(d.endpoint);
      insertDelivery.run(d.id, d.tenant, endpoint, d.eventType, d.payload, d.createdAt, d.createdAt, d.createdAt);
    }
    queueEvent(tenant, 'plant.created', deliveries[0]?.payload ?? plantJson(plant));
    return undefined;
  }).immediate;
  const deleteWithEvent = db.transaction((tenant: string, id: bigint) => {
    if (deleteOne.run(tenant, id).changes === 0) return false;
    queueEvent(tenant, 'plant.deleted', `{"id":${id}}`);
    return true;
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
    delete: deleteWithEvent,
    close() {
      db.close();
    },
  };
}

await rawServe('raw-sqlite baseline', (flags) => rawSqliteStore(flags.db ?? 'raw-baseline.db', flags.webhookUrls));
