import type { Kysely, Migration } from 'kysely';

/**
 * Each delivery keeps the W3C `traceparent` of the write that queued it
 * (NULL when that write was not traced), so its attempts' spans link back to
 * it from any instance and after a restart. A nullable column without a
 * default: adding it rewrites nothing, however large the outbox.
 */
export const deliveryTraceparent: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('webhook_deliveries').addColumn('traceparent', 'text').execute();
  },

  async down(db: Kysely<unknown>) {
    await db.schema.alterTable('webhook_deliveries').dropColumn('traceparent').execute();
  },
};
