import { sql, type Kysely, type Migration } from 'kysely';

const CHURNING_TABLES = ['webhook_deliveries', 'webhook_attempts'] as const;

/**
 * Autovacuum of the outbox tables after a fixed number of dead rows instead of a fifth of the table, so what
 * retention pruned is reusable after each round. Raw SQL: the migration connection's search path is the schema.
 */
export const outboxAutovacuum: Migration = {
  async up(db: Kysely<unknown>) {
    for (const table of CHURNING_TABLES) {
      await sql`ALTER TABLE ${sql.id(table)} SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 1000)`.execute(db);
    }
  },

  async down(db: Kysely<unknown>) {
    for (const table of CHURNING_TABLES) {
      await sql`ALTER TABLE ${sql.id(table)} RESET (autovacuum_vacuum_scale_factor, autovacuum_vacuum_threshold)`.execute(db);
    }
  },
};
