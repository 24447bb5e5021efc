// What a slow receiver's backlog costs the webhook dispatcher's storage
// calls that run on every wake: a claim that passes over that receiver (at
// its concurrency cap) and the look for the next due time. Each is timed on
// a storage holding only the other endpoints' work (the baseline) and on
// the same storage with BACKLOG more deliveries due for the slow receiver,
// in one run; the ratio should stay near 1.0x however large the backlog.
//
// Run: node --import tsx bench/outbox-backlog.ts [--storage sqlite,postgres]
//        [--backlog N] [--calls N]
// Needs the built packages (`pnpm build`); PostgreSQL from
// PLANT_STORE_TEST_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { NewDelivery, Storage } from '@plant-store/core/adapter';
import { postgresStorage } from '@plant-store/storage-postgres';
import { sqliteStorage } from '@plant-store/storage-sqlite';
import { connectClient, redactedUrl, TEST_DATABASE_URL, testSchemas } from '../test/support/postgres-database.js';
import { median } from './lib/stats.js';

const { values } = parseArgs({
  options: {
    storage: { type: 'string', default: 'sqlite,postgres' },
    backlog: { type: 'string', default: '100000' },
    calls: { type: 'string', default: '200' },
  },
});
const BACKLOG = Number(values.backlog);
const CALLS = Number(values.calls);
const T0 = 1_700_000_000_000;
// Due after the backlog, as new work is behind a receiver's old backlog.
const NOW = T0 + BACKLOG + CALLS + 1;

const dir = await mkdtemp(join(tmpdir(), 'outbox-backlog-'));
const schemas = testSchemas();
try {
  process.stdout.write(`| storage | call | without backlog ms | with ${BACKLOG.toLocaleString('en')} due ms | ratio |\n| --- | --- | --- | --- | --- |\n`);
  for (const name of values.storage.split(',')) {
    if (name === 'postgres' && !(await postgresReachable())) continue;
    const open = (label: string) => (name === 'postgres' ? postgresStorage({ connectionString: TEST_DATABASE_URL, schema: schemas.next() }) : sqliteStorage({ path: join(dir, `${label}.db`) }));
    const without = await measure(await open('without'), 0);
    const within = await measure(await open('with'), BACKLOG);
    for (const call of ['claim passing over', 'next due time'] as const) {
      const [a, b] = [without[call], within[call]];
      process.stdout.write(`| ${name} | ${call} | ${a.toFixed(3)} | ${b.toFixed(3)} | ${(b / a).toFixed(2)}x |\n`);
    }
  }
} finally {
  await schemas.dropAll().catch(() => {});
  await rm(dir, { recursive: true, force: true });
}

/** Whether the test database answers; says so on stderr when it does not (the SQLite rows still come). */
async function postgresReachable(): Promise<boolean> {
  const connected = await connectClient(TEST_DATABASE_URL);
  if ('client' in connected) {
    await connected.client.end();
    return true;
  }
  process.stderr.write(`postgres skipped: ${redactedUrl(TEST_DATABASE_URL)} is unreachable (${connected.unreachable})\n`);
  return false;
}

/** Median milliseconds of each call, on `storage` with `backlog` deliveries due for the slow receiver; closes it. */
async function measure(storage: Storage, backlog: number): Promise<Record<'claim passing over' | 'next due time', number>> {
  try {
    await queue(storage, backlog, CALLS);
    const claims: number[] = [];
    const looks: number[] = [];
    for (let call = 0; call < CALLS; call++) {
      let started = performance.now();
      const claimed = await storage.outbox.claimDue({ owner: 'bench', now: NOW, leaseMs: 60_000, limit: 1, skipEndpoints: ['sub_slow'] });
      claims.push(performance.now() - started);
      if (claimed[0]?.endpointId !== 'sub_fast') throw new Error(`claim ${call} found ${JSON.stringify(claimed.map((d) => d.id))}, not the fast endpoint's next delivery`);
      started = performance.now();
      await storage.outbox.nextDueAt();
      looks.push(performance.now() - started);
    }
    return { 'claim passing over': median(claims), 'next due time': median(looks) };
  } finally {
    await storage.close();
  }
}

/** The slow receiver's `backlog` due deliveries (oldest first), then `fast` for another endpoint, each with a plant of its own batch. */
async function queue(storage: Storage, backlog: number, fast: number): Promise<void> {
  const delivery = (id: string, endpointId: string, createdAt: number): NewDelivery => ({ id, tenant: 't', endpointId, eventType: 'plant.created', payload: '{}', createdAt });
  let plant = 0n;
  for (let start = 0; start < backlog; start += 1000) {
    const batch = Array.from({ length: Math.min(1000, backlog - start) }, (_, index) => delivery(`slow${start + index}`, 'sub_slow', T0 + start + index));
    await storage.plants.create('t', { id: plant++, name: 'p' }, batch);
  }
  const batch = Array.from({ length: fast }, (_, index) => delivery(`fast${index}`, 'sub_fast', T0 + backlog + index));
  await storage.plants.create('t', { id: plant++, name: 'p' }, batch);
}
