import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Parked deliveries: kept for a disabled endpoint, replayed or discarded when it is enabled again. A delivery's status may be
 * `parked`; an endpoint counts the parked messages dropped past the storage's bound since it was last disabled (`parked_dropped`).
 * The parked index serves the bound (the newest of an endpoint first) and the replay (its oldest first); parked rows are few, so it
 * costs the rest nothing. The status check is added NOT VALID: the rows already there passed the stricter check it replaces, and
 * validating would read the whole outbox under the migration's lock. A constant default: adding the column rewrites nothing.
 */
export const parkedDeliveries: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable('webhook_endpoints')
      .addColumn('parked_dropped', 'bigint', (column) => column.notNull().defaultTo(0))
      .execute();
    await sql`ALTER TABLE ${sql.id('webhook_deliveries')} DROP CONSTRAINT ${sql.id('webhook_deliveries_status_check')}`.execute(db);
    await sql`ALTER TABLE ${sql.id('webhook_deliveries')} ADD CONSTRAINT ${sql.id('webhook_deliveries_status_check')}
      CHECK (status IN ('pending', 'delivered', 'failed', 'parked')) NOT VALID`.execute(db);
    // IF NOT EXISTS: an operator may build it beforehand with CREATE INDEX CONCURRENTLY, so writes are not blocked.
    await db.schema
      .createIndex('webhook_deliveries_parked')
      .ifNotExists()
      .on('webhook_deliveries')
      .columns(['endpoint_id', 'created_at', 'seq'])
      .where(sql.ref('status'), '=', sql.lit('parked'))
      .execute();
  },

  async down(db: Kysely<unknown>) {
    await db.schema.dropIndex('webhook_deliveries_parked').execute();
    await sql`ALTER TABLE ${sql.id('webhook_deliveries')} DROP CONSTRAINT ${sql.id('webhook_deliveries_status_check')}`.execute(db);
    await sql`ALTER TABLE ${sql.id('webhook_deliveries')} ADD CONSTRAINT ${sql.id('webhook_deliveries_status_check')}
      CHECK (status IN ('pending', 'delivered', 'failed'))`.execute(db);
    await db.schema.alterTable('webhook_endpoints').dropColumn('parked_dropped').execute();
  },
};
