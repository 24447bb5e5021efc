import type { Kysely, Migration } from 'kysely';

/** Each endpoint's own request headers, a JSON object. Ed25519 endpoints need no column: the `whsk_` prefix of their secret tells the kind. */
export const endpointHeaders: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('webhook_endpoints').addColumn('headers', 'text').execute();
  },

  async down(db: Kysely<unknown>) {
    await db.schema.alterTable('webhook_endpoints').dropColumn('headers').execute();
  },
};
