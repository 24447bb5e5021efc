import { sql, type Kysely, type Migration } from 'kysely';

/** Each rate-limited endpoint's attempts in its current one-second window, shared by every instance. */
export const endpointRateBudgets: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('webhook_rate_budgets')
      .addColumn('endpoint_id', sql`text COLLATE "C"`, (column) => column.primaryKey().references('webhook_endpoints.id').onDelete('cascade'))
      // Epoch ms of the window's start, a whole second.
      .addColumn('window_start', 'bigint', (column) => column.notNull())
      .addColumn('used', 'integer', (column) => column.notNull())
      .execute();
  },

  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('webhook_rate_budgets').execute();
  },
};
