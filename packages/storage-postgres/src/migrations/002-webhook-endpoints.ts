import { sql, type Kysely, type Migration } from 'kysely';

/** Tenants' webhook endpoints. Ids compare bytewise (`COLLATE "C"`), so keyset pages follow one order everywhere. */
export const webhookEndpoints: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('webhook_endpoints')
      .addColumn('id', sql`text COLLATE "C"`, (column) => column.primaryKey())
      .addColumn('tenant', 'text', (column) => column.notNull())
      .addColumn('url', 'text', (column) => column.notNull())
      .addColumn('event_types', sql`text[]`, (column) => column.notNull())
      .addColumn('description', 'text')
      .addColumn('rate_limit', 'integer')
      .addColumn('status', 'text', (column) => column.notNull().check(sql`status in ('enabled', 'disabled')`))
      .addColumn('disabled_reason', 'text')
      .addColumn('secret', 'text', (column) => column.notNull())
      .addColumn('previous_secret', 'text')
      .addColumn('previous_secret_expires_at', 'bigint')
      .addColumn('failing_since', 'bigint')
      .addColumn('exhausted_at', 'bigint')
      .addColumn('created_at', 'bigint', (column) => column.notNull())
      .addColumn('updated_at', 'bigint', (column) => column.notNull())
      .execute();
    // A tenant's listing (keyset on id) and the endpoints a plant write fans out to.
    await db.schema.createIndex('webhook_endpoints_tenant_id').on('webhook_endpoints').columns(['tenant', 'id']).execute();
    // Tenants list their deliveries newest first; per-endpoint operations find its deliveries by state.
    await db.schema.createIndex('webhook_deliveries_tenant_created_at').on('webhook_deliveries').columns(['tenant', 'created_at', 'seq']).execute();
    await db.schema.createIndex('webhook_deliveries_endpoint_status').on('webhook_deliveries').columns(['endpoint_id', 'status']).execute();
  },

  async down(db: Kysely<unknown>) {
    await db.schema.dropIndex('webhook_deliveries_endpoint_status').execute();
    await db.schema.dropIndex('webhook_deliveries_tenant_created_at').execute();
    await db.schema.dropTable('webhook_endpoints').execute();
  },
};
