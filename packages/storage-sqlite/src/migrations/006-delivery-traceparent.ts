import type { Kysely, Migration } from 'kysely';

/** Each delivery keeps the W3C `traceparent` of the write that queued it, so its attempts' spans link back to it. */
export const deliveryTraceparent: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('webhook_deliveries').addColumn('traceparent', 'text').execute();
  },

  async down(db: Kysely<unknown>) {
    await db.schema.alterTable('webhook_deliveries').dropColumn('traceparent').execute();
  },
};
