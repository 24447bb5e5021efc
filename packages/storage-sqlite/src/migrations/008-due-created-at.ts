import { sql, type Kysely, type Migration } from 'kysely';

/** The due index also holds creation times, so the backlog read of every metrics scrape reads the index alone. */
export const dueCreatedAt: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.dropIndex('webhook_deliveries_due').execute();
    await dueIndex(db, ['next_attempt_at', 'created_at']);
  },

  async down(db: Kysely<unknown>) {
    await db.schema.dropIndex('webhook_deliveries_due').execute();
    await dueIndex(db, ['next_attempt_at']);
  },
};

function dueIndex(db: Kysely<unknown>, columns: string[]): Promise<void> {
  return db.schema.createIndex('webhook_deliveries_due').on('webhook_deliveries').columns(columns).where(sql.ref('status'), '=', sql.lit('pending')).execute();
}
