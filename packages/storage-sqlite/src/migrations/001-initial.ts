import { sql, type Kysely, type Migration } from 'kysely';

/** Plants, the webhook outbox and its attempt log. */
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
  // The primary key is the clustered index (without rowid), so keyset listing per tenant reads rows in order.
  await db.schema
    .createTable('plants')
    .addColumn('tenant', 'text', (column) => column.notNull())
    .addColumn('id', 'integer', (column) => column.notNull())
    .addColumn('name', 'text', (column) => column.notNull())
    .addColumn('tag', 'text')
    .addPrimaryKeyConstraint('plants_pk', ['tenant', 'id'])
    .modifyEnd(sql`strict, without rowid`)
    .execute();
  // Tag-filtered listings: one tag reads its plants already in id order.
  await db.schema.createIndex('plants_tenant_tag_id').on('plants').columns(['tenant', 'tag', 'id']).where(sql.ref('tag'), 'is not', null).execute();
}

async function createDeliveries(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('tenant', 'text', (column) => column.notNull())
    .addColumn('endpoint', 'text', (column) => column.notNull())
    .addColumn('event_type', 'text', (column) => column.notNull())
    .addColumn('payload', 'text', (column) => column.notNull())
    .addColumn('status', 'text', (column) => column.notNull().check(sql`status in ('pending', 'delivered', 'failed')`))
    .addColumn('attempt_count', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'integer')
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires_at', 'integer')
    .addColumn('created_at', 'integer', (column) => column.notNull())
    .addColumn('updated_at', 'integer', (column) => column.notNull())
    .modifyEnd(sql`strict`)
    .execute();
  // Claiming scans only pending rows, earliest due first; delivered history costs nothing.
  await db.schema
    .createIndex('webhook_deliveries_due')
    .on('webhook_deliveries')
    .columns(['next_attempt_at'])
    .where(sql.ref('status'), '=', sql.lit('pending'))
    .execute();
  // Operators list newest first.
  await db.schema.createIndex('webhook_deliveries_created_at').on('webhook_deliveries').columns(['created_at']).execute();
}

async function createAttempts(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('webhook_attempts')
    .addColumn('delivery_id', 'text', (column) => column.notNull().references('webhook_deliveries.id').onDelete('cascade'))
    .addColumn('attempt', 'integer', (column) => column.notNull())
    .addColumn('at', 'integer', (column) => column.notNull())
    .addColumn('duration_ms', 'integer', (column) => column.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('error', 'text')
    .addPrimaryKeyConstraint('webhook_attempts_pk', ['delivery_id', 'attempt'])
    .modifyEnd(sql`strict, without rowid`)
    .execute();
}
