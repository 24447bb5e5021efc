import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { inspectSqliteFile, migratedFileBefore } from '../sqlite-file.test-support.js';
import { sqliteStorage } from '../sqlite-storage.js';

const folder = mkdtempSync(join(tmpdir(), 'plant-store-migration-012-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const T0 = 1_700_000_000_000;

/**
 * A file one migration back (011): an ordering endpoint with a line of two (one due with a failed attempt, one held behind
 * it), a delivered one with its attempt, and rows inserted out of creation order, so the rowids the migration keeps matter.
 */
function fileAtVersion011(path: string): Promise<void> {
  return migratedFileBefore(path, '012', (db) => {
    db.prepare(
      `INSERT INTO webhook_endpoints (id, tenant, url, event_types, status, secret, ordering, created_at, updated_at)
       VALUES ('ep_a', 'acme', 'https://a.example/hook', '["plant.created"]', 'enabled', 'whsec_c2VjcmV0', 'plant', ?, ?)`,
    ).run(T0, T0);
    const insert = db.prepare(
      `INSERT INTO webhook_deliveries (rowid, id, tenant, endpoint_id, event_type, payload, status, attempt_count, next_attempt_at, created_at, updated_at, ordering_key, line_seq)
       VALUES (?, ?, 'acme', 'ep_a', 'plant.created', ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    insert.run(7, 'msg_due', '{"id":1}', 'pending', 1, T0 + 5000, T0, T0 + 10, '1', 1);
    insert.run(3, 'msg_held', '{"id":1}', 'pending', 0, null, T0 + 1, T0 + 1, '1', 2);
    insert.run(5, 'msg_done', '{"id":2}', 'delivered', 1, null, T0, T0 + 20, '2', 1);
    const attempt = db.prepare('INSERT INTO webhook_attempts (delivery_id, attempt, at, duration_ms, status_code) VALUES (?, 1, ?, 5, ?)');
    attempt.run('msg_due', T0 + 5, 500);
    attempt.run('msg_done', T0 + 15, 204);
  });
}

describe('migration 012: parked deliveries', () => {
  it('rebuilds the deliveries table for the parked status, keeping every delivery, its rowid, its attempts and its place in line', async () => {
    const path = join(folder, 'v11.db');
    await fileAtVersion011(path);
    const storage = await sqliteStorage({ path });
    try {
      expect(await storage.outbox.get('msg_due')).toMatchObject({ status: 'pending', nextAttemptAt: T0 + 5000, attempts: [{ statusCode: 500 }] });
      expect(await storage.outbox.get('msg_held')).toMatchObject({ status: 'pending', waitingBehind: 'msg_due' });
      expect(await storage.outbox.get('msg_done')).toMatchObject({ status: 'delivered', attempts: [{ statusCode: 204 }] });
      expect(await storage.endpoints.get('acme', 'ep_a')).not.toHaveProperty('parkedDropped');
      // The disable parks both of the line (nothing is in flight), which the new check accepts.
      await storage.endpoints.setStatus('ep_a', 'disabled', 'by hand', T0 + 100);
      expect((await storage.outbox.list({ status: 'parked' }))!.map((delivery) => delivery.id)).toEqual(['msg_held', 'msg_due']);
      // The replay keeps the line's order: its creation order.
      await storage.endpoints.setStatus('ep_a', 'enabled', undefined, T0 + 200);
      expect(await storage.outbox.get('msg_due')).toMatchObject({ status: 'pending', nextAttemptAt: T0 + 200 });
      expect(await storage.outbox.get('msg_held')).toMatchObject({ status: 'pending', waitingBehind: 'msg_due' });
      // Attempts still go with their delivery (the foreign key's cascade).
      expect(await storage.outbox.prune({ olderThan: T0 + 21, limit: 10 })).toBe(1);
    } finally {
      await storage.close();
    }
    inspectSqliteFile(path, (db) => {
      const rowids = db.prepare('SELECT id, rowid FROM webhook_deliveries ORDER BY id').raw(true).all();
      expect(rowids).toEqual([
        ['msg_due', 7],
        ['msg_held', 3],
      ]);
      expect(db.prepare('SELECT delivery_id FROM webhook_attempts').pluck(true).all()).toEqual(['msg_due']);
      expect(db.pragma('foreign_key_check')).toEqual([]);
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      const foreignKeys = db.pragma('foreign_key_list(webhook_attempts)') as { table: string; on_delete: string }[];
      expect(foreignKeys.map(({ table, on_delete }) => [table, on_delete])).toEqual([['webhook_deliveries', 'CASCADE']]);
      const tables = db.prepare("SELECT name, strict, wr FROM pragma_table_list WHERE name LIKE 'webhook_%' ORDER BY name").raw(true).all();
      expect(tables).toEqual([
        ['webhook_attempts', 1, 1],
        ['webhook_deliveries', 1, 0],
        ['webhook_endpoints', 1, 0],
      ]);
      const indexes = db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'webhook_deliveries' AND sql IS NOT NULL ORDER BY name");
      expect(indexes.pluck(true).all()).toEqual([
        'webhook_deliveries_created_at',
        'webhook_deliveries_due',
        'webhook_deliveries_endpoint_due',
        'webhook_deliveries_endpoint_status',
        'webhook_deliveries_endpoint_updated_at',
        'webhook_deliveries_finished',
        'webhook_deliveries_line',
        'webhook_deliveries_parked',
        'webhook_deliveries_tenant_created_at',
      ]);
    });
  });

  it('gives a new file the same schema as one migrated from 011', async () => {
    const schemaOf = (path: string) =>
      inspectSqliteFile(path, (db) => db.prepare("SELECT type, name, sql FROM sqlite_master WHERE name LIKE 'webhook_%' ORDER BY name").raw(true).all());
    const migrated = join(folder, 'migrated.db');
    await fileAtVersion011(migrated);
    await (await sqliteStorage({ path: migrated })).close();
    const fresh = join(folder, 'fresh.db');
    await (await sqliteStorage({ path: fresh })).close();
    expect(schemaOf(fresh)).toEqual(schemaOf(migrated));
  });
});
