import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Pending deliveries by endpoint, for claims that pass over endpoints (instead of walking the due index past a slow
 * receiver's backlog). It holds no lease column, so claims stay HOT updates.
 */
export const endpointDue: Migration = {
  async up(db: Kysely<unknown>) {
    // IF NOT EXISTS: an operator may build it beforehand with CREATE INDEX CONCURRENTLY, so writes are not blocked.
    await db.schema
      .createIndex('webhook_deliveries_endpoint_due')
      .ifNotExists()
      .on('webhook_deliveries')
      .columns(['endpoint_id', 'next_attempt_at', 'seq'])
      .where(sql.ref('status'), '=', sql.lit('pending'))
      .execute();
  },

  async down(db: Kysely<unknown>) {
    await db.schema.dropIndex('webhook_deliveries_endpoint_due').execute();
  },
};
