import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Pending deliveries by endpoint, each endpoint's earliest due first: a claim that passes over endpoints reads the
 * others' due deliveries from here instead of walking the due index past a slow receiver's whole backlog.
 */
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
