import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RELEASE_NEXT_IN_LINE } from './delivery-lines.js';
import { DUE_FOR_ENDPOINT, INSERT_DELIVERY_IN_LINE, NEXT_DUE_AT, PENDING_ENDPOINTS, PENDING_STATS, WAITING_BEHIND } from './outbox-queries.js';
import { queryPlanOf } from './sqlite-file.test-support.js';
import { sqliteStorage } from './sqlite-storage.js';

const folder = mkdtempSync(join(tmpdir(), 'plant-store-outbox-queries-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** SQLite's plan of `sql` on a migrated file, one step per line. */
async function planOf(sql: string, parameters: unknown[]): Promise<string> {
  const path = join(folder, `plan-${Math.random().toString(36).slice(2)}.db`);
  const storage = await sqliteStorage({ path });
  await storage.close();
  return queryPlanOf(path, sql, parameters).join('\n');
}

// The conformance suite holds what these queries answer; this holds how they find it, which no answer shows: a
// slow receiver's backlog of due deliveries must not be read by each claim that passes over it, nor by each look
// for the next due time (a dropped index or a WHERE that no longer implies a partial index's would bring that back).
describe('the claim, next-due and backlog queries', () => {
  it('find the endpoints with pending deliveries by seeking from one to the next in their index', async () => {
    expect(await planOf(PENDING_ENDPOINTS, [])).toContain('SEARCH webhook_deliveries USING COVERING INDEX webhook_deliveries_endpoint_due (endpoint_id>?)');
  });

  it("read one endpoint's claimable deliveries in due order from its own part of the index", async () => {
    const plan = await planOf(DUE_FOR_ENDPOINT, ['sub_a', 1, 1, 10]);
    expect(plan).toContain('USING INDEX webhook_deliveries_endpoint_due (endpoint_id=? AND next_attempt_at<?)');
    // In index order: no sort of everything the endpoint has due.
    expect(plan).not.toContain('TEMP B-TREE');
  });

  it("count the backlog for metrics from the due index alone, the oldest's creation time included", async () => {
    // Not the table: a row lookup per pending delivery held SQLite (and the event loop) up to seconds per million pending.
    expect(await planOf(PENDING_STATS, [])).toBe('SCAN webhook_deliveries USING COVERING INDEX webhook_deliveries_due');
  });

  it('look for the next due time at the head of the due index only, seeking past the held deliveries (no due time)', async () => {
    const plan = await planOf(NEXT_DUE_AT, []);
    expect(plan).toContain('SEARCH webhook_deliveries USING INDEX webhook_deliveries_due (next_attempt_at>?)');
    expect(plan).toContain('SEARCH webhook_deliveries USING INDEX webhook_deliveries_due (next_attempt_at<?)');
    expect(plan).not.toContain('TEMP B-TREE');
  });

  it("join a plant's line and release its next delivery by seeks in the line index, however long the line", async () => {
    const inLine = await planOf(INSERT_DELIVERY_IN_LINE, ['msg_a', 't', 'ep_a', 'plant.created', '{}', 1, 1, 1, null, 0, '7']);
    expect(inLine).toContain('USING COVERING INDEX webhook_deliveries_line (endpoint_id=? AND ordering_key=?)');
    const release = await planOf(RELEASE_NEXT_IN_LINE, [{ at: 1, endpoint: 'ep_a', key: '7' }]);
    expect(release).toContain('USING INDEX webhook_deliveries_line (endpoint_id=? AND ordering_key=?)');
    expect(release).not.toContain('TEMP B-TREE');
  });

  it('find the message each held delivery of a listing waits for by one seek in the line index, however long the line', async () => {
    const plan = await planOf(WAITING_BEHIND, ['["msg_a","msg_b"]']);
    // The deliveries by their ids (never a range of every held one), then the line's part before each, nearest first.
    expect(plan).toContain('SEARCH d USING INDEX sqlite_autoindex_webhook_deliveries_1 (id=?)');
    expect(plan).toContain('SEARCH p USING INDEX webhook_deliveries_line (endpoint_id=? AND ordering_key=? AND line_seq<?)');
    expect(plan).not.toContain('TEMP B-TREE');
  });
});
