import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Parked deliveries: kept for a disabled endpoint, replayed or discarded when it is enabled again. The status check
 * gains 'parked'; SQLite cannot change a check in place, so the deliveries table is rebuilt (with its rowids: they
 * order a listing's and a claim's ties) and its indexes made again. Its attempts are set aside in a table without a
 * foreign key and written back: dropping the old deliveries table would otherwise delete them (ON DELETE CASCADE),
 * whatever `foreign_keys` is, and renaming tables instead depends on `legacy_alter_table`. Then each endpoint counts
 * the parked messages the bound dropped, and an index of the parked ones per endpoint in creation order serves the
 * bound and the replay. No `down`: a parked delivery has no status the older schema accepts.
 */
export const parkedDeliveries: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`CREATE TABLE webhook_deliveries_012 (${sql.raw(DELIVERY_COLUMNS)}) STRICT`.execute(db);
    await sql`INSERT INTO webhook_deliveries_012 (rowid, ${sql.raw(COPIED)}) SELECT rowid, ${sql.raw(COPIED)} FROM webhook_deliveries`.execute(db);
    await sql`CREATE TABLE webhook_attempts_012 AS SELECT * FROM webhook_attempts`.execute(db);
    await sql`DROP TABLE webhook_attempts`.execute(db);
    await sql`DROP TABLE webhook_deliveries`.execute(db);
    await sql`ALTER TABLE webhook_deliveries_012 RENAME TO webhook_deliveries`.execute(db);
    await sql`CREATE TABLE webhook_attempts (${sql.raw(ATTEMPT_COLUMNS)}) STRICT, WITHOUT ROWID`.execute(db);
    await sql`INSERT INTO webhook_attempts (${sql.raw(ATTEMPTS_COPIED)}) SELECT ${sql.raw(ATTEMPTS_COPIED)} FROM webhook_attempts_012`.execute(db);
    await sql`DROP TABLE webhook_attempts_012`.execute(db);
    for (const index of DELIVERY_INDEXES) await sql.raw(index).execute(db);
    await db.schema
      .alterTable('webhook_endpoints')
      .addColumn('parked_dropped', 'integer', (column) => column.notNull().defaultTo(0))
      .execute();
  },
};

/** The deliveries table as migrations 001 to 011 left it, but for the status check. */
const DELIVERY_COLUMNS = `
  id TEXT PRIMARY KEY, tenant TEXT NOT NULL, endpoint_id TEXT NOT NULL, event_type TEXT NOT NULL, payload TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed', 'parked')),
  attempt_count INTEGER DEFAULT 0 NOT NULL, next_attempt_at INTEGER, lease_owner TEXT, lease_expires_at INTEGER,
  created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, test INTEGER DEFAULT 0 NOT NULL, traceparent TEXT,
  ordering_key TEXT, line_seq INTEGER`;

const COPIED = `id, tenant, endpoint_id, event_type, payload, status, attempt_count, next_attempt_at, lease_owner, lease_expires_at,
  created_at, updated_at, test, traceparent, ordering_key, line_seq`;

/** The attempts table as migrations 001 to 011 left it. */
const ATTEMPT_COLUMNS = `
  delivery_id TEXT NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE, attempt INTEGER NOT NULL, at INTEGER NOT NULL,
  duration_ms INTEGER NOT NULL, status_code INTEGER, error TEXT, interrupted INTEGER DEFAULT 0 NOT NULL CHECK (interrupted IN (0, 1)),
  response TEXT, CONSTRAINT webhook_attempts_pk PRIMARY KEY (delivery_id, attempt)`;

const ATTEMPTS_COPIED = 'delivery_id, attempt, at, duration_ms, status_code, error, interrupted, response';

/** The deliveries' indexes (dropped with the old table) as earlier migrations made them, the finished one now with the parked ones too. */
const DELIVERY_INDEXES = [
  'CREATE INDEX webhook_deliveries_created_at ON webhook_deliveries (created_at)',
  'CREATE INDEX webhook_deliveries_tenant_created_at ON webhook_deliveries (tenant, created_at)',
  'CREATE INDEX webhook_deliveries_endpoint_status ON webhook_deliveries (endpoint_id, status)',
  // Parked is finished for retention, from when it was parked.
  "CREATE INDEX webhook_deliveries_finished ON webhook_deliveries (updated_at) WHERE status IN ('delivered', 'failed', 'parked')",
  'CREATE INDEX webhook_deliveries_endpoint_updated_at ON webhook_deliveries (endpoint_id, updated_at) WHERE attempt_count > 0',
  "CREATE INDEX webhook_deliveries_endpoint_due ON webhook_deliveries (endpoint_id, next_attempt_at) WHERE status = 'pending'",
  "CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at, created_at) WHERE status = 'pending'",
  "CREATE INDEX webhook_deliveries_line ON webhook_deliveries (endpoint_id, ordering_key, line_seq) WHERE status = 'pending' AND ordering_key IS NOT NULL",
  // An endpoint's parked messages in creation order (the rowid, in every index, breaks ties): the bound drops from one end, a replay reads from it.
  "CREATE INDEX webhook_deliveries_parked ON webhook_deliveries (endpoint_id, created_at) WHERE status = 'parked'",
];
