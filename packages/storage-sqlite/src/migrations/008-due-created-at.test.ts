import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PENDING_STATS } from '../outbox-queries.js';
import { migratedFileBefore, queryPlanOf } from '../sqlite-file.test-support.js';
import { sqliteStorage } from '../sqlite-storage.js';

const folder = mkdtempSync(join(tmpdir(), 'plant-store-migration-008-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** A file one migration back (007), with pending deliveries due in another order than they were queued, and one delivered. */
function fileAtVersion007(path: string): Promise<void> {
  return migratedFileBefore(path, '008', (db) => {
    const insert = db.prepare(
      `INSERT INTO webhook_deliveries (id, tenant, endpoint_id, event_type, payload, status, next_attempt_at, created_at, updated_at)
       VALUES (?, 't', 'sub_a', 'plant.created', '{"id":1,"name":"Fern"}', ?, ?, ?, ?)`,
    );
    insert.run('msg_old_retry', 'pending', 9000, 1000, 1000);
    insert.run('msg_new', 'pending', 3000, 3000, 3000);
    insert.run('msg_done', 'delivered', null, 500, 600);
  });
}

describe('migration 008: creation times in the due index', () => {
  it('keeps the backlog, the claim order and the count, now read from the index alone', async () => {
    const path = join(folder, 'v7.db');
    await fileAtVersion007(path);
    const storage = await sqliteStorage({ path });
    try {
      expect(await storage.outbox.pendingStats()).toEqual({ count: 2, oldestCreatedAt: 1000 });
      const claimed = await storage.outbox.claimDue({ owner: 'o', now: 10_000, leaseMs: 1000, limit: 10 });
      expect(claimed.map((delivery) => delivery.id)).toEqual(['msg_new', 'msg_old_retry']);
    } finally {
      await storage.close();
    }
    const plan = queryPlanOf(path, PENDING_STATS);
    expect(plan).toEqual(['SCAN webhook_deliveries USING COVERING INDEX webhook_deliveries_due']);
  });
});
