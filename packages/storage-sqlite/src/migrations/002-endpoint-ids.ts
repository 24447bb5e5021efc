import { createHash } from 'node:crypto';
import { sql, type Kysely, type Migration } from 'kysely';

/** Deliveries refer to their endpoint by id, the default id of their URL; attempts can be interrupted. No `down`: a URL cannot be recovered. */
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

/** Core's `subscriptionId` as it was when this migration was written, frozen: an applied migration must do the same on every database. */
export function endpointIdOfUrl(url: string): string {
  return `sub_${createHash('sha256').update(url, 'utf8').digest('hex').slice(0, 24)}`;
}
