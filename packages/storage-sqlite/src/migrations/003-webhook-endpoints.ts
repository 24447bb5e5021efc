import { sql, type Kysely, type Migration } from 'kysely';

/** Tenants' webhook endpoints, and indexes for the tenant's view of deliveries and per-endpoint operations on them. */
export const webhookEndpoints: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('webhook_endpoints')
      .addColumn('id', 'text', (column) => column.primaryKey())
      .addColumn('tenant', 'text', (column) => column.notNull())
      .addColumn('url', 'text', (column) => column.notNull())
      .addColumn('event_types', 'text', (column) => column.notNull())
      .addColumn('description', 'text')
      .addColumn('rate_limit', 'integer')
      .addColumn('status', 'text', (column) => column.notNull().check(sql`status in ('enabled', 'disabled')`))
      .addColumn('disabled_reason', 'text')
      .addColumn('secret', 'text', (column) => column.notNull())
      .addColumn('previous_secret', 'text')
      .addColumn('previous_secret_expires_at', 'integer')
      .addColumn('failing_since', 'integer')
      .addColumn('exhausted_at', 'integer')
      .addColumn('created_at', 'integer', (column) => column.notNull())
      .addColumn('updated_at', 'integer', (column) => column.notNull())
      .modifyEnd(sql`strict`)
      .execute();
    // A tenant's listing (keyset on id) and the endpoints a plant write fans out to.
    await db.schema.createIndex('webhook_endpoints_tenant_id').on('webhook_endpoints').columns(['tenant', 'id']).execute();
    // Tenants list their deliveries newest first; per-endpoint operations find its deliveries by state.
    await db.schema.createIndex('webhook_deliveries_tenant_created_at').on('webhook_deliveries').columns(['tenant', 'created_at']).execute();
    await db.schema.createIndex('webhook_deliveries_endpoint_status').on('webhook_deliveries').columns(['endpoint_id', 'status']).execute();
  },

  async down(db: Kysely<unknown>) {
    await db.schema.dropIndex('webhook_deliveries_endpoint_status').execute();
    await db.schema.dropIndex('webhook_deliveries_tenant_created_at').execute();
    await db.schema.dropTable('webhook_endpoints').execute();
  },
};
