import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES, createPlantStore, type Delivery } from '@plant-store/core';
import type { Storage } from '@plant-store/core/adapter';
import { postgresStorage } from '@plant-store/storage-postgres';
import { sqliteStorage } from '@plant-store/storage-sqlite';
import { runCli, startServe, type ServeProcess } from '../support/cli-process.js';
import { postgresAvailable, TEST_DATABASE_URL, testSchemas, withClient } from '../support/postgres.js';
import { runCliInProcess } from '../support/run-cli-in-process.js';
import { startReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

// `plant-store webhooks check [--repair]` through the real CLI, on a real SQLite file and on PostgreSQL: a plant's line is
// broken in the database the way a lost release leaves it (its head ended, the next never made due), the check reports it,
// the repair releases it while a service runs, and the service delivers the line to a real receiver, in order.

const BetterSqlite3 = createRequire(new URL('../../packages/storage-sqlite/package.json', import.meta.url))('better-sqlite3') as new (
  path: string,
) => { prepare(sql: string): { run(...parameters: unknown[]): unknown }; close(): void };

const acme = { subject: 'tester', tenant: 'acme', scopes: ALL_SCOPES };
const TOKEN = 's3cret';
/** The head ends as delivered and nothing releases the next: what the races left behind. */
const END_WITHOUT_RELEASE = "UPDATE webhook_deliveries SET status = 'delivered', next_attempt_at = NULL, updated_at = created_at WHERE id = ";

const folder = mkdtempSync(join(tmpdir(), 'plant-store-webhooks-check-'));
const running: ServeProcess[] = [];
const receivers: WebhookReceiver[] = [];
afterAll(async () => {
  await Promise.all(running.map((service) => service.stop('SIGKILL').catch(() => undefined)));
  await Promise.all(receivers.map((receiver) => receiver.close()));
  rmSync(folder, { recursive: true, force: true });
});

interface Seeded {
  readonly endpointId: string;
  /** Plant 1's line: created (the broken head), deleted, created again. */
  readonly line: readonly Delivery[];
}

/** An ordered endpoint to `url`; plant 1 created, deleted and created again (a line of three), plant 2 created (a healthy line). Nothing is sent. */
async function seed(storage: Storage, url: string): Promise<Seeded> {
  const store = createPlantStore({ storage, webhooks: { allowPrivateDestinations: true } });
  try {
    const input = { url, eventTypes: ['plant.created', 'plant.deleted'], ordering: 'plant' };
    const { endpoint } = await store.webhooks.endpoints.create(acme, input);
    await store.plants.create(acme, { id: 1, name: 'Fern' });
    await store.plants.delete(acme, 1n);
    await store.plants.create(acme, { id: 1, name: 'Fern again' });
    await store.plants.create(acme, { id: 2, name: 'Ivy' });
    const line = (await store.allTenants.webhooks.list({ endpointId: endpoint.id })).filter((d) => d.orderingKey === '1').reverse();
    expect(line.map((d) => d.eventType)).toEqual(['plant.created', 'plant.deleted', 'plant.created']);
    return { endpointId: endpoint.id, line };
  } finally {
    await store.close();
  }
}

async function receiver(): Promise<WebhookReceiver> {
  const started = await startReceiver();
  receivers.push(started);
  return started;
}

/** The check, the repair under a running service and the delivery that follows, on one storage's CLI arguments. */
async function checkAndRepair(storageArgs: readonly string[], env: Record<string, string>, hooks: WebhookReceiver, { endpointId, line }: Seeded) {
  const check = (...args: string[]) => runCli(['webhooks', 'check', ...storageArgs, ...args], { env }, 30_000);

  const found = await check();
  expect(found).toMatchObject({ code: 1, stderr: '' });
  const [header, row, summary] = found.stdout.trimEnd().split('\n');
  expect(header).toMatch(/^ENDPOINT\s+TENANT\s+PLANT\s+WAITING\s+OLDEST$/);
  expect(row!.split(/\s+/)).toEqual([endpointId, 'acme', '1', '2', new Date(line[1]!.createdAt).toISOString()]);
  expect(summary).toBe("1 stuck line: 2 messages can never become due; --repair makes each line's first message due now");

  const json = await check('--json');
  expect(json.code).toBe(1);
  expect(JSON.parse(json.stdout)).toEqual([
    { endpointId, tenant: 'acme', orderingKey: '1', waiting: 2, oldestCreatedAt: new Date(line[1]!.createdAt).toISOString() },
  ]);

  // A service sends the healthy line; the broken one stays put until the repair, which runs beside it.
  const service = await startServe(['--port', '0', '--tokens', `${TOKEN}=acme`, '--log-level', 'error', ...storageArgs], {
    env: { ...env, PLANT_STORE_WEBHOOK_ALLOW_PRIVATE: 'true', PLANT_STORE_PORTAL: 'off' },
  });
  running.push(service);
  await hooks.waitForMessages(1, { timeoutMs: 20_000 });
  expect(hooks.received.map((request) => /"id":(-?\d+)/.exec(request.body)![1])).toEqual(['2']);
  expect((await check()).code).toBe(1);

  const repaired = await check('--repair');
  expect(repaired).toMatchObject({ code: 1, stderr: '' });
  expect(repaired.stdout).toMatch(/^ENDPOINT\s+TENANT\s+PLANT\s+WAITING\s+OLDEST\s+REPAIR\n/);
  expect(repaired.stdout).toContain(' 1 made due\n');
  expect(repaired.stdout).toMatch(/1 stuck line: 2 messages can never become due; released 1 /);

  await hooks.waitForMessages(3, { timeoutMs: 20_000 });
  const sent = [...hooks.messages.keys()];
  expect(sent.slice(1)).toEqual([line[1]!.id, line[2]!.id]);
  const healthy = await check();
  expect(healthy).toEqual({
    code: 0,
    signal: null,
    stdout: 'every delivery line can drain: no pending message waits without a way to become due\n',
    stderr: '',
  });
  await service.stop('SIGTERM');
}

describe('plant-store webhooks check', () => {
  it('rejects bad arguments with exit 2 and one line, and is in the help', async () => {
    const db = join(folder, 'args.db');
    for (const [args, message] of [
      [['check', '--limit', '0'], '--limit must be an integer'],
      [['check', 'extra'], "unexpected argument 'extra'"],
      [['check', '--status', 'pending'], 'check does not take --status'],
      [['list', '--repair'], 'list does not take --repair'],
      [['chek'], "unknown subcommand 'chek': use list, get, retry, resend, recover, prune, check or endpoints"],
    ] as const) {
      const { status, stdout, stderr } = await runCliInProcess(['webhooks', ...args, '--db', db]);
      expect({ status, stdout }).toEqual({ status: 2, stdout: '' });
      expect(stderr).toContain(message);
      expect(stderr.trimEnd().split('\n')).toHaveLength(1);
    }
    expect((await runCliInProcess(['webhooks', '--help'])).stdout).toContain('plant-store webhooks check [--repair] [--limit N] [--json]');
  });

  it('on a SQLite file: reports a broken line, repairs it beside a running service, which delivers it in order', { timeout: 90_000 }, async () => {
    const hooks = await receiver();
    const db = join(folder, 'check.db');
    const seeded = await seed(await sqliteStorage({ path: db }), hooks.url('/ordered'));
    const raw = new BetterSqlite3(db);
    raw.prepare(`${END_WITHOUT_RELEASE}?`).run(seeded.line[0]!.id);
    raw.close();
    await checkAndRepair(['--storage', 'sqlite', '--db', db], {}, hooks, seeded);
  });

  describe.skipIf(!postgresAvailable)('on PostgreSQL', () => {
    const schemas = testSchemas();
    afterAll(() => schemas.dropAll());

    it('reports a broken line, repairs it beside a running service, which delivers it in order', { timeout: 90_000 }, async () => {
      const hooks = await receiver();
      const schema = schemas.next();
      const seeded = await seed(await postgresStorage({ connectionString: TEST_DATABASE_URL, schema }), hooks.url('/ordered'));
      await withClient((client) => client.query(`SET search_path TO ${pg.escapeIdentifier(schema)}; ${END_WITHOUT_RELEASE}'${seeded.line[0]!.id}'`));
      await checkAndRepair(['--storage', 'postgres', '--db-schema', schema], { PLANT_STORE_DATABASE_URL: TEST_DATABASE_URL }, hooks, seeded);
    });
  });
});
