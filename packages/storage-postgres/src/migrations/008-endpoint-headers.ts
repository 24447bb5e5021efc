import type { Kysely, Migration } from 'kysely';

/**
 * Each endpoint's own request headers, a JSON object (NULL when none). A
 * nullable column without a default: adding it rewrites nothing. Ed25519
 * endpoints need no column: their `whsk_` secret keys sit in the secret
 * columns, the prefix telling the kind.
 */
export const endpointHeaders: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('webhook_endpoints').addColumn('headers', 'jsonb').execute();
  },

  async down(db: Kysely<unknown>) {
    await db.schema.alterTable('webhook_endpoints').dropColumn('headers').execute();
  },
};
