import type { Kysely, Migration } from 'kysely';

/** Each endpoint's filter, its JSON text (NULL: every event it subscribes to). */
export const endpointFilters: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('webhook_endpoints').addColumn('filter', 'text').execute();
  },

  async down(db: Kysely<unknown>) {
    await db.schema.alterTable('webhook_endpoints').dropColumn('filter').execute();
  },
};
