import { sql, type Kysely, type Migration } from 'kysely';

/** The outbox tables whose rows retention deletes in a steady stream. */
const CHURNING_TABLES = ['webhook_deliveries', 'webhook_attempts'] as const;

/**
 * Autovacuum of the outbox tables after a fixed number of dead rows instead
 * of a fifth of the table. Retention deletes finished deliveries all day;
 * their space is reused only once vacuum has seen them, and PostgreSQL's
 * default lets a large outbox carry a fifth of itself in dead rows (and a
 * growing one grow further) before the first vacuum. With a fixed
 * threshold each autovacuum round (every minute by default) makes what was
 * pruned since the last one reusable. Raw SQL: the migration connection's
 * search path is the service's schema.
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
