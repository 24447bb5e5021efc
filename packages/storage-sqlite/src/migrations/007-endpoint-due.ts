import { sql, type Kysely, type Migration } from 'kysely';

/** Pending deliveries by endpoint, for claims that pass over endpoints (instead of walking the due index past a slow receiver's backlog). */
export const endpointDue: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createIndex('webhook_deliveries_endpoint_due')
      .on('webhook_deliveries')
      .columns(['endpoint_id', 'next_attempt_at'])
      .where(sql.ref('status'), '=', sql.lit('pending'))
      .execute();
  },

  async down(db: Kysely<unknown>) {
    await db.schema.dropIndex('webhook_deliveries_endpoint_due').execute();
  },
};
