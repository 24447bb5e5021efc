import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Retention: an index of finished deliveries by finish time (`updated_at`,
 * the end of the last attempt), so each prune batch reads only what it
 * deletes; and incremental auto-vacuum, so the pages a prune frees are handed
 * back to the file system and the file stops growing under a steady load.
 *
 * The pragma only records the mode here: on a file that already has tables it
 * takes effect with a VACUUM, which cannot run inside the migration's
 * transaction, so the storage runs it right after migrating (see
 * `applyIncrementalVacuum`). New files get the mode before their first table.
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
