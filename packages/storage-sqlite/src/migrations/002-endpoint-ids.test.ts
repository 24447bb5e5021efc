import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { subscriptionId } from '@plant-store/core/adapter';
import { migratedFileBefore } from '../sqlite-file.test-support.js';
import { sqliteStorage } from '../sqlite-storage.js';
import { endpointIdOfUrl } from './002-endpoint-ids.js';

const folder = mkdtempSync(join(tmpdir(), 'plant-store-migration-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** A file as the first version left it: schema 001 only, deliveries pointing at URLs, one attempt made. */
function fileAtVersion001(path: string): Promise<void> {
  return migratedFileBefore(path, '002', (db) => {
    const insert = db.prepare(
      `INSERT INTO webhook_deliveries (id, tenant, endpoint, event_type, payload, status, attempt_count, next_attempt_at, created_at, updated_at)
       VALUES (?, 't', ?, 'plant.created', '{"id":1,"name":"Fern"}', 'pending', ?, 1000, 1000, 1000)`,
    );
    insert.run('msg_a', 'https://a.example/hook', 1);
    insert.run('msg_b', 'https://b.example/hook?token=x', 0);
    insert.run('msg_c', 'https://a.example/hook', 0);
    db.prepare('INSERT INTO webhook_attempts (delivery_id, attempt, at, duration_ms, status_code, error) VALUES (?, 1, 1000, 5, 500, ?)').run(
      'msg_a',
      'receiver answered 500',
    );
  });
}

describe('migration 002: endpoint ids', () => {
  it('turns the URLs of queued deliveries into the ids their subscriptions get by default, keeping attempts and retry counts', async () => {
    const path = join(folder, 'v1.db');
    await fileAtVersion001(path);
    const storage = await sqliteStorage({ path });
    try {
      const byId = new Map((await storage.outbox.list())!.map((delivery) => [delivery.id, delivery]));
      // Literal ids: what the migration writes must not follow later changes to core.
      expect(byId.get('msg_a')).toMatchObject({ endpointId: 'sub_7225f113a8e84f56b0ceb237', status: 'pending', attemptCount: 1 });
      expect(byId.get('msg_a')!.attempts).toEqual([{ at: 1000, durationMs: 5, statusCode: 500, error: 'receiver answered 500' }]);
      expect(byId.get('msg_b')).toMatchObject({ endpointId: 'sub_c5d3f74ddf474989bcf67795', attemptCount: 0 });
      expect(byId.get('msg_c')!.endpointId).toBe(byId.get('msg_a')!.endpointId);
      const claimed = await storage.outbox.claimDue({ owner: 'o', now: 2000, leaseMs: 1000, limit: 10 });
      expect(claimed.map((delivery) => [delivery.id, delivery.attemptCount])).toEqual([
        ['msg_a', 1],
        ['msg_b', 0],
        ['msg_c', 0],
      ]);
      // New attempts are numbered after the old ones.
      const attempt = { at: 2000, durationMs: 1, statusCode: 204 };
      expect(await storage.outbox.recordAttempt('msg_a', 'o', attempt, { status: 'delivered' })).toBe(true);
      expect((await storage.outbox.get('msg_a'))!.attempts).toHaveLength(2);
    } finally {
      await storage.close();
    }
  });

  it("derives ids with its own frozen copy of core's subscriptionId, which still gives the same ids", () => {
    // The migration keeps its copy whatever happens to core. Should core's
    // function ever change on purpose, rows migrated before then keep the old
    // ids: update this expectation, never the migration.
    const urls = ['https://a.example/hook', 'https://b.example/hook?token=x', 'http://127.0.0.1:8080/', 'https://例え.jp/フック', ''];
    for (const url of urls) expect(endpointIdOfUrl(url)).toBe(subscriptionId(url));
    expect(endpointIdOfUrl('https://a.example/hook')).toBe('sub_7225f113a8e84f56b0ceb237');
  });
});
