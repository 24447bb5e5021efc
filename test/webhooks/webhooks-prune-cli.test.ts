import { setTimeout as sleep } from 'node:timers/promises';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES, createPlantStore } from '@plant-store/core';
import { sqliteStorage } from '@plant-store/storage-sqlite';
import { eventually } from '../support/eventually.js';
import { fixtureTransport, subscriptions } from '../support/fixture-transport.js';
import { runCliInProcess } from '../support/run-cli-in-process.js';

const acme = { subject: 'tester', tenant: 'acme', scopes: ALL_SCOPES };

const run = (args: string[], env: NodeJS.ProcessEnv = {}) => runCliInProcess(['webhooks', ...args], env);

let dir: string;
let db: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'plant-store-webhooks-prune-'));
  db = join(dir, 'plant-store.db');
  await seed(db);
});

/** A database with one delivered and one failed delivery (plant 1) and two pending ones (plant 2). */
async function seed(db: string): Promise<void> {
  // Plant 1: delivered to /ok, failed (410) at /gone. Retention off here: the CLI is what prunes.
  const sending = createPlantStore({
    storage: await sqliteStorage({ path: db }),
    webhooks: { subscriptions, transport: fixtureTransport, jitter: 0, retentionMs: null },
  });
  await sending.plants.create(acme, { id: 1, name: 'Fern' });
  await eventually(async () => (await sending.allTenants.webhooks.list({ status: 'pending' })).length === 0, 'both outcomes');
  await sending.close();
  // Plant 2: queued, nobody sends: both pending.
  const queueing = createPlantStore({ storage: await sqliteStorage({ path: db }), webhooks: { subscriptions } });
  await queueing.plants.create(acme, { id: 2, name: 'Ivy' });
  await queueing.close();
}

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('plant-store webhooks prune', () => {
  it('rejects bad arguments, and a missing --older-than while retention is off, with exit 2 and one line', async () => {
    for (const [args, env, message] of [
      [['prune', '--db', db, '--older-than', 'soon'], {}, '--older-than must be a duration'],
      [['prune', '--db', db, 'extra'], {}, "unexpected argument 'extra'"],
      [['prune', '--db', db, '--status', 'failed'], {}, 'prune does not take --status'],
      [['prune', '--db', db], { PLANT_STORE_WEBHOOK_RETENTION: 'off' }, 'retention is off (PLANT_STORE_WEBHOOK_RETENTION): prune needs --older-than'],
      [['prune', '--db', db], { PLANT_STORE_WEBHOOK_RETENTION: 'later' }, 'PLANT_STORE_WEBHOOK_RETENTION (--webhook-retention)'],
    ] as const) {
      const { status, stdout, stderr } = await run([...args], env);
      expect({ status, stdout }).toEqual({ status: 2, stdout: '' });
      expect(stderr).toContain(message);
      expect(stderr.trimEnd().split('\n')).toHaveLength(1);
    }
  });

  it('keeps what finished within the retention (30 days by default), then prunes delivered and failed ones, never pending ones', async () => {
    const kept = await run(['prune', '--db', db]);
    expect(kept).toMatchObject({ status: 0, stderr: '' });
    expect(kept.stdout).toMatch(/^pruned 0 delivered, failed or parked deliveries \(with their attempts\) finished before \d{4}-/);
    expect((await run(['list', '--db', db, '--json'])).stdout).toContain('"delivered"');

    await sleep(5);
    const pruned = await run(['prune', '--db', db], { PLANT_STORE_WEBHOOK_RETENTION: '1ms' });
    expect(pruned).toMatchObject({ status: 0, stderr: '' });
    expect(pruned.stdout).toMatch(/^pruned 2 delivered, failed or parked deliveries/);
    const left = JSON.parse((await run(['list', '--db', db, '--json'])).stdout) as { status: string }[];
    expect(left.map((delivery) => delivery.status)).toEqual(['pending', 'pending']);
    expect((await run(['prune', '--db', db, '--older-than', '0s'])).stdout).toMatch(/^pruned 0 /);
  });

  it('--older-than overrides the retention both ways, and never prunes pending ones', async () => {
    const own = join(dir, 'older-than.db');
    await seed(own);
    await sleep(5);
    // A retention of 1 ms would prune both finished deliveries; --older-than 30d keeps them.
    expect((await run(['prune', '--db', own, '--older-than', '30d'], { PLANT_STORE_WEBHOOK_RETENTION: '1ms' })).stdout).toMatch(/^pruned 0 /);
    // Retention off keeps everything; --older-than 1ms prunes what finished, and only that.
    const pruned = await run(['prune', '--db', own, '--older-than', '1ms'], { PLANT_STORE_WEBHOOK_RETENTION: 'off' });
    expect(pruned).toMatchObject({ status: 0, stderr: '' });
    expect(pruned.stdout).toMatch(/^pruned 2 delivered, failed or parked deliveries/);
    const left = JSON.parse((await run(['list', '--db', own, '--json'])).stdout) as { status: string }[];
    expect(left.map((delivery) => delivery.status)).toEqual(['pending', 'pending']);
  });

  it('lists prune in its help', async () => {
    expect((await run(['--help'])).stdout).toContain('plant-store webhooks prune [--older-than DURATION]');
  });
});
