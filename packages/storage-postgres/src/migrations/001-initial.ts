import { sql, type Kysely, type Migration } from 'kysely';

/** Plants, the webhook outbox and its attempt log; table names are unqualified (the Kysely is bound to the schema). */
export const initial: Migration = {
  async up(db: Kysely<unknown>) {
    await createPlants(db);
    await createDeliveries(db);
    await createAttempts(db);
  },

  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('webhook_attempts').execute();
    await db.schema.dropTable('webhook_deliveries').execute();
    await db.schema.dropTable('plants').execute();
  },
};

async function createPlants(db: Kysely<unknown>): Promise<void> {
  // Keyset listings per tenant read the primary key's index in order.
  await db.schema
    .createTable('plants')
    .addColumn('tenant', 'text', (column) => column.notNull())
    .addColumn('id', 'bigint', (column) => column.notNull())
    .addColumn('name', 'text', (column) => column.notNull())
    .addColumn('tag', 'text')
    .addPrimaryKeyConstraint('plants_pk', ['tenant', 'id'])
    .execute();
  // Tag-filtered listings: each tag reads its plants already in id order.
  await db.schema.createIndex('plants_tenant_tag_id').on('plants').columns(['tenant', 'tag', 'id']).where(sql.ref('tag'), 'is not', null).execute();
}

async function createDeliveries(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('webhook_deliveries')
    // Insertion order: breaks ties between equal times (SQLite's rowid).
    .addColumn('seq', 'bigint', (column) => column.generatedAlwaysAsIdentity().notNull().unique())
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('tenant', 'text', (column) => column.notNull())
    .addColumn('endpoint_id', 'text', (column) => column.notNull())
    .addColumn('event_type', 'text', (column) => column.notNull())
    .addColumn('payload', 'text', (column) => column.notNull())
    .addColumn('status', 'text', (column) => column.notNull().check(sql`status in ('pending', 'delivered', 'failed')`))
    .addColumn('attempt_count', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'bigint')
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires_at', 'bigint')
    .addColumn('created_at', 'bigint', (column) => column.notNull())
    .addColumn('updated_at', 'bigint', (column) => column.notNull())
    .execute();
  // Claims scan only pending rows, earliest due first; delivered history costs nothing.
  await db.schema
    .createIndex('webhook_deliveries_due')
    .on('webhook_deliveries')
    .columns(['next_attempt_at', 'seq'])
    .where(sql.ref('status'), '=', sql.lit('pending'))
    .execute();
  // Operators list newest first, optionally by status.
  await db.schema.createIndex('webhook_deliveries_created_at').on('webhook_deliveries').columns(['created_at', 'seq']).execute();
  await db.schema.createIndex('webhook_deliveries_status_created_at').on('webhook_deliveries').columns(['status', 'created_at', 'seq']).execute();
}

async function createAttempts(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('webhook_attempts')
    .addColumn('delivery_id', 'text', (column) => column.notNull())
    .addColumn('attempt', 'integer', (column) => column.notNull())
    .addColumn('at', 'bigint', (column) => column.notNull())
    .addColumn('duration_ms', 'bigint', (column) => column.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('error', 'text')
    // An attempt cut short by a shutdown: logged, but not counted against the retry schedule.
    .addColumn('interrupted', 'boolean', (column) => column.notNull().defaultTo(false))
    .addPrimaryKeyConstraint('webhook_attempts_pk', ['delivery_id', 'attempt'])
    .addForeignKeyConstraint('webhook_attempts_delivery_fk', ['delivery_id'], 'webhook_deliveries', ['id'], (constraint) => constraint.onDelete('cascade'))
    .execute();
}
