import type { Kysely, Migration } from 'kysely';

/**
 * Each endpoint's filter, its JSON text (NULL: every event it subscribes to). Text, not jsonb: a write compares it with the text it
 * matched the event against, and jsonb would give it back in another spelling. Nullable without a default: adding it rewrites nothing.
 */
export const endpointFilters: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('webhook_endpoints').addColumn('filter', 'text').execute();
  },

  async down(db: Kysely<unknown>) {
    await db.schema.alterTable('webhook_endpoints').dropColumn('filter').execute();
  },
};
