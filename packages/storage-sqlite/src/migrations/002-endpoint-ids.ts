import { createHash } from 'node:crypto';
import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Deliveries refer to their endpoint by id instead of by URL, and attempts
 * can be marked interrupted (a shutdown cut them short; they do not count
 * toward the retry schedule).
 *
 * Rows queued before this version hold a URL: each becomes the id a
 * subscription with that URL gets by default (`endpointIdOfUrl`), so they
 * are still delivered to the same subscriber. No `down`: a URL cannot be
 * recovered from its id.
 */
export const endpointIds: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('webhook_deliveries').renameColumn('endpoint', 'endpoint_id').execute();
    // A few distinct URLs at most (one per subscription ever configured): one UPDATE each.
    const { rows } = await sql<{ url: string }>`SELECT DISTINCT endpoint_id AS url FROM webhook_deliveries`.execute(db);
    for (const { url } of rows) {
      await sql`UPDATE webhook_deliveries SET endpoint_id = ${endpointIdOfUrl(url)} WHERE endpoint_id = ${url}`.execute(db);
    }
    await db.schema
      .alterTable('webhook_attempts')
      .addColumn('interrupted', 'integer', (column) => column.notNull().defaultTo(0).check(sql`interrupted in (0, 1)`))
      .execute();
  },
};

/**
 * The default subscription id of `url` as core derived it when this
 * migration was written (`subscriptionId`), frozen here: an applied
 * migration must do the same on every database it ever meets, so a later
 * change to core's function must not reach it. Exported for the test that
 * checks it still equals core's.
 */
export function endpointIdOfUrl(url: string): string {
  return `sub_${createHash('sha256').update(url, 'utf8').digest('hex').slice(0, 24)}`;
}
