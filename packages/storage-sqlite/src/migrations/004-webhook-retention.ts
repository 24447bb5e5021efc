import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Retention: finished deliveries by finish time, so each prune batch reads only what it deletes; incremental
 * auto-vacuum (on a file with tables, it takes effect with the VACUUM the storage runs after migrating).
 */
export const webhookRetention: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`PRAGMA auto_vacuum = INCREMENTAL`.execute(db);
    await db.schema
      .createIndex('webhook_deliveries_finished')
      .on('webhook_deliveries')
      .columns(['updated_at'])
      .where(sql.ref('status'), 'in', sql`('delivered', 'failed')`)
      .execute();
  },

  async down(db: Kysely<unknown>) {
    await db.schema.dropIndex('webhook_deliveries_finished').execute();
  },
};
