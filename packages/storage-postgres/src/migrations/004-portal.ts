import { sql, type Kysely, type Migration } from 'kysely';

/**
 * The tenant webhook portal: links (the secret only as its SHA-256), receivers' answers, test deliveries, and an index
 * of an endpoint's deliveries by `updated_at` (every attempt moves it) for its statistics.
 */
export const portal: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('portal_links')
      .addColumn('id', sql`text COLLATE "C"`, (column) => column.primaryKey())
      .addColumn('tenant', 'text', (column) => column.notNull())
      .addColumn('scopes', sql`text[]`, (column) => column.notNull())
      .addColumn('secret_sha256', 'text', (column) => column.notNull())
      .addColumn('created_at', 'bigint', (column) => column.notNull())
      .addColumn('expires_at', 'bigint', (column) => column.notNull())
      .addColumn('revoked_at', 'bigint')
      .execute();
    await db.schema.createIndex('portal_links_tenant_created_at').on('portal_links').columns(['tenant', 'created_at']).execute();
    await db.schema.alterTable('webhook_attempts').addColumn('response', 'text').execute();
    await db.schema
      .alterTable('webhook_deliveries')
      .addColumn('test', 'boolean', (column) => column.notNull().defaultTo(false))
      .execute();
    // IF NOT EXISTS: an operator may build it beforehand with CREATE INDEX CONCURRENTLY, so writes are not blocked.
    await db.schema
      .createIndex('webhook_deliveries_endpoint_updated_at')
      .ifNotExists()
      .on('webhook_deliveries')
      .columns(['endpoint_id', 'updated_at'])
      // Only deliveries with an attempt: a new one (the plant write's) then adds nothing to this index.
      .where(sql.ref('attempt_count'), '>', 0)
      .execute();
  },

  async down(db: Kysely<unknown>) {
    await db.schema.dropIndex('webhook_deliveries_endpoint_updated_at').execute();
    await db.schema.alterTable('webhook_deliveries').dropColumn('test').execute();
    await db.schema.alterTable('webhook_attempts').dropColumn('response').execute();
    await db.schema.dropIndex('portal_links_tenant_created_at').execute();
    await db.schema.dropTable('portal_links').execute();
  },
};
