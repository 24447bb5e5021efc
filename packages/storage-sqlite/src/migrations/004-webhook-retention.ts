import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Retention: an index of finished deliveries by finish time (`updated_at`), so each prune batch reads only what it
 * deletes; and incremental auto-vacuum, so pruned pages go back to the file system. The pragma only records the
 * mode: on a file with tables it takes effect with a VACUUM the storage runs after migrating (`applyIncrementalVacuum`).
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
