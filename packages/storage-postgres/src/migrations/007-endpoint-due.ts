import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Pending deliveries by endpoint, each endpoint's earliest due first: a claim that passes over endpoints reads the
 * others' due deliveries from here instead of walking the due index past a slow receiver's whole backlog. It holds
 * no lease column, so claims stay HOT updates.
 */
export const endpointDue: Migration = {
  async up(db: Kysely<unknown>) {
    // IF NOT EXISTS: an operator with a large outbox may build it beforehand with CREATE INDEX CONCURRENTLY
    // (same name, columns and WHERE), so that this migration does not block writes while it is built.
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
