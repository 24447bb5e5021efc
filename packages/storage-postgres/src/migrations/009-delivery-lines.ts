import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Ordered delivery per plant. An endpoint's `ordering`; a delivery's line (`ordering_key`, the plant id, only to an endpoint
 * that orders) and its place in it (`line_seq`). A held delivery is pending with no due time, so no due or claim index range
 * reads it; the line index finds a line's last pending delivery, and its first held one, in one seek. Nullable columns and a
 * constant default: adding them rewrites nothing.
 */
export const deliveryLines: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable('webhook_endpoints')
      .addColumn('ordering', 'text', (column) => column.notNull().defaultTo('none').check(sql`ordering in ('none', 'plant')`))
      .execute();
    await db.schema.alterTable('webhook_deliveries').addColumn('ordering_key', 'text').addColumn('line_seq', 'bigint').execute();
    // IF NOT EXISTS: an operator may build it beforehand with CREATE INDEX CONCURRENTLY, so writes are not blocked.
    await db.schema
      .createIndex('webhook_deliveries_line')
      .ifNotExists()
      .on('webhook_deliveries')
      .columns(['endpoint_id', 'ordering_key', 'line_seq'])
      .where(sql<boolean>`status = 'pending' AND ordering_key IS NOT NULL`)
      .execute();
  },

  async down(db: Kysely<unknown>) {
    await db.schema.dropIndex('webhook_deliveries_line').execute();
    await db.schema.alterTable('webhook_deliveries').dropColumn('line_seq').dropColumn('ordering_key').execute();
    await db.schema.alterTable('webhook_endpoints').dropColumn('ordering').execute();
  },
};
