import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Pending deliveries by endpoint, each endpoint's earliest due first. A
 * claim that passes over endpoints (at their concurrency cap, or their rate
 * limit) reads each other endpoint's due deliveries from here, instead of
 * walking the due index past every delivery of the endpoints it passes
 * over: one slow receiver with a large backlog would otherwise cost a scan
 * of that backlog on every claim. Pending rows only, as the due index.
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
