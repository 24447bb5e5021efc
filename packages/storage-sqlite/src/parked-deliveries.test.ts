import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ConfigurationError } from '@plant-store/core';
import type { Storage, SyncHostTransactionWrites, AsyncHostTransactionWrites } from '@plant-store/core/adapter';
import { DROP_PARKED_BEYOND_LIMIT, END_PARKED, END_PARKED_ATTEMPTS, PARKED_OF, REPLAY_PARKED } from './parked-deliveries.js';
import { queryPlanOf } from './sqlite-file.test-support.js';
import { sqliteStorage } from './sqlite-storage.js';

// The conformance suite holds what parking does; this holds what only SQLite shows: how its statements find the parked
// messages, and that a host's transaction parks and bounds them as the storage's own writes do.

const folder = mkdtempSync(join(tmpdir(), 'plant-store-parked-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));
let files = 0;
const freshPath = () => join(folder, `parked-${files++}.db`);

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const T0 = 1_700_000_000_000;
const event = (id: number) => ({ eventType: 'plant.created' as const, payload: `{"id":${id}}`, createdAt: T0 + id });

/** A storage on a new file with `ep_off` (disabled) and `ep_on` of tenant acme, both subscribed to plant.created. */
async function withDisabledEndpoint(parkedLimit: number): Promise<{ storage: Storage; path: string }> {
  const path = freshPath();
  const storage = await sqliteStorage({ path, parkedLimit });
  cleanups.push(() => storage.close());
  for (const id of ['ep_off', 'ep_on']) {
    await storage.endpoints.create(
      { id, tenant: 'acme', url: `https://${id}.example/hook`, eventTypes: ['plant.created'], secret: 'whsec_c2VjcmV0', createdAt: T0 },
      50,
    );
  }
  await storage.endpoints.setStatus('ep_off', 'disabled', 'by hand', T0);
  return { storage, path };
}

const payloads = async (storage: Storage, endpointId: string) =>
  (await storage.outbox.list({ endpointId, limit: 100 }))!.map((delivery) => `${delivery.payload}:${delivery.status}`).reverse();

describe('parked deliveries on SQLite', () => {
  it('refuses a parkedLimit that is not a whole number of at least 0', async () => {
    for (const parkedLimit of [-1, 1.5, Number.NaN]) {
      await expect(sqliteStorage({ path: ':memory:', parkedLimit })).rejects.toBeInstanceOf(ConfigurationError);
    }
  });

  it("find an endpoint's parked messages in creation order on their own index, for the bound, the replay and the discard", async () => {
    const path = freshPath();
    await (await sqliteStorage({ path })).close();
    const plan = (sql: string, parameters: unknown[]) => queryPlanOf(path, sql, parameters).join('\n');
    // The bound reads the endpoint's part of the index from its newest end (no sort), then deletes what lies past it by rowid.
    const bound = plan(DROP_PARKED_BEYOND_LIMIT, ['ep_a', 10]);
    expect(bound).toContain('SEARCH webhook_deliveries USING COVERING INDEX webhook_deliveries_parked (endpoint_id=?)');
    expect(bound).toContain('SEARCH webhook_deliveries USING INTEGER PRIMARY KEY (rowid=?)');
    expect(bound).not.toContain('TEMP B-TREE');
    const replay = plan(PARKED_OF, ['ep_a']);
    expect(replay).toContain('SEARCH webhook_deliveries USING INDEX webhook_deliveries_parked (endpoint_id=?)');
    expect(replay).not.toContain('TEMP B-TREE');
    const ended = { at: 1, endpoint: 'ep_a', before: 2 };
    expect(plan(END_PARKED, [ended])).toContain('USING INDEX webhook_deliveries_parked (endpoint_id=? AND created_at<?)');
    expect(plan(END_PARKED_ATTEMPTS, [{ ...ended, error: 'x' }])).toContain('USING INDEX webhook_deliveries_parked (endpoint_id=? AND created_at<?)');
    expect(plan(REPLAY_PARKED, [{ id: 'msg_a', now: 1 }])).toContain('webhook_deliveries_line');
  });

  it("parks and bounds in a host's better-sqlite3 transaction, rolled back with it", async () => {
    const { storage, path } = await withDisabledEndpoint(1);
    const host = new BetterSqlite3(path);
    cleanups.push(() => {
      host.close();
    });
    host.pragma('journal_mode = WAL');
    host.pragma('busy_timeout = 2000');
    const writes = storage.joinTransaction!(host) as SyncHostTransactionWrites;
    host.transaction(() => {
      writes.create('acme', { id: 1n, name: 'a' }, [], event(1));
      writes.create('acme', { id: 2n, name: 'b' }, [], event(2));
    })();
    expect(await payloads(storage, 'ep_off')).toEqual(['{"id":2}:parked']);
    expect(await storage.endpoints.get('acme', 'ep_off')).toMatchObject({ parkedDropped: 1 });
    expect(await payloads(storage, 'ep_on')).toEqual(['{"id":1}:pending', '{"id":2}:pending']);
    expect(() =>
      host.transaction(() => {
        writes.delete('acme', 2n, { ...event(3), eventType: 'plant.deleted' });
        writes.create('acme', { id: 4n, name: 'd' }, [], event(4));
        throw new Error('the host changed its mind');
      })(),
    ).toThrow('changed its mind');
    expect(await payloads(storage, 'ep_off')).toEqual(['{"id":2}:parked']);
    expect(await storage.endpoints.get('acme', 'ep_off')).toMatchObject({ parkedDropped: 1 });
  });

  it("parks and bounds in a host's kysely transaction", async () => {
    const { storage, path } = await withDisabledEndpoint(1);
    const connection = new BetterSqlite3(path);
    connection.pragma('busy_timeout = 2000');
    const kysely = new Kysely<unknown>({ dialect: new SqliteDialect({ database: connection }) });
    cleanups.push(() => kysely.destroy());
    await kysely.transaction().execute(async (trx) => {
      const writes = storage.joinTransaction!(trx) as AsyncHostTransactionWrites;
      await writes.create('acme', { id: 1n, name: 'a' }, [], event(1));
      await writes.create('acme', { id: 2n, name: 'b' }, [], event(2));
    });
    expect(await payloads(storage, 'ep_off')).toEqual(['{"id":2}:parked']);
    expect(await storage.endpoints.get('acme', 'ep_off')).toMatchObject({ parkedDropped: 1 });
    expect(await payloads(storage, 'ep_on')).toEqual(['{"id":1}:pending', '{"id":2}:pending']);
  });

  it('bounds what an attempt parks (one in flight at the disable), counting the drop on the endpoint', async () => {
    const { storage } = await withDisabledEndpoint(1);
    await storage.plants.create('acme', { id: 1n, name: 'p' }, [], event(1));
    const [inFlight] = await storage.outbox.claimDue({ owner: 'o', now: T0 + 5, leaseMs: 60_000, limit: 10 });
    expect(inFlight).toMatchObject({ endpointId: 'ep_on', payload: '{"id":1}' });
    await storage.plants.create('acme', { id: 2n, name: 'p' }, [], event(2));
    // Parks ep_on's second message (the first is in flight), within the bound of 1.
    expect(await storage.endpoints.update('acme', 'ep_on', { status: 'disabled', updatedAt: T0 + 10 })).not.toHaveProperty('parkedDropped');
    const ending = { at: T0 + 20, durationMs: 0, error: 'endpoint disabled' };
    expect(await storage.outbox.recordAttempt(inFlight!.id, 'o', ending, { status: 'parked' })).toBe(true);
    // Two parked now, past the bound: the older (the one the attempt parked) is dropped and counted.
    expect(await payloads(storage, 'ep_on')).toEqual(['{"id":2}:parked']);
    expect(await storage.endpoints.get('acme', 'ep_on')).toMatchObject({ parkedDropped: 1 });
  });

  it('bounds what a disable parks, and counts afresh from it', async () => {
    const { storage } = await withDisabledEndpoint(2);
    for (let id = 1; id <= 3; id++) await storage.plants.create('acme', { id: BigInt(id), name: 'p' }, [], event(id));
    expect(await storage.endpoints.get('acme', 'ep_off')).toMatchObject({ parkedDropped: 1 });
    // ep_on has three pending; its disable parks them past the bound of 2, a new time off counting one drop.
    const disabled = await storage.endpoints.update('acme', 'ep_on', { status: 'disabled', updatedAt: T0 + 10 });
    expect(disabled).toMatchObject({ status: 'disabled', parkedDropped: 1 });
    expect(await payloads(storage, 'ep_on')).toEqual(['{"id":2}:parked', '{"id":3}:parked']);
    // An update that keeps it disabled is no new time off.
    expect(await storage.endpoints.update('acme', 'ep_on', { description: 'off', updatedAt: T0 + 11 })).toMatchObject({ parkedDropped: 1 });
  });
});
