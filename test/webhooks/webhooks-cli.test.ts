import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES, createPlantStore, type Delivery } from '@plant-store/core';
import { subscriptionId } from '@plant-store/core/adapter';
import { sqliteStorage } from '@plant-store/storage-sqlite';
import { eventually } from '../support/eventually.js';
import { fixtureTransport, subscriptions } from '../support/fixture-transport.js';
import { runCliInProcess } from '../support/run-cli-in-process.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const acme = { subject: 'tester', tenant: 'acme', scopes: ALL_SCOPES };

const run = (args: string[], env: NodeJS.ProcessEnv = {}) => runCliInProcess(['webhooks', ...args], env);

let dir: string;
let db: string;
let failedId: string;
let deliveredId: string;
let pendingIds: string[];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'plant-store-webhooks-cli-'));
  db = join(dir, 'plant-store.db');
  // Plant 1: its /ok delivery is delivered, its /gone one failed (410).
  const sending = createPlantStore({ storage: await sqliteStorage({ path: db }), webhooks: { subscriptions, transport: fixtureTransport, jitter: 0 } });
  await sending.plants.create(acme, { id: 1, name: 'Fern' });
  await eventually(async () => (await sending.allTenants.webhooks.list({ status: 'pending' })).length === 0, 'both outcomes');
  await sending.close();
  // Plant 2: queued, nobody sends (no transport): both pending.
  const queueing = createPlantStore({ storage: await sqliteStorage({ path: db }), webhooks: { subscriptions } });
  await queueing.plants.create(acme, { id: 2, name: 'Ivy' });
  const all = await queueing.allTenants.webhooks.list();
  await queueing.close();
  failedId = all.find((delivery) => delivery.status === 'failed')!.id;
  deliveredId = all.find((delivery) => delivery.status === 'delivered')!.id;
  pendingIds = all.filter((delivery) => delivery.status === 'pending').map((delivery) => delivery.id);
  expect(pendingIds).toHaveLength(2);
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('plant-store webhooks (in process)', () => {
  it('lists deliveries newest first with status, attempts and last result', async () => {
    const { status, stdout, stderr } = await run(['list', '--db', db]);
    expect(stderr).toBe('');
    expect(status).toBe(0);
    const lines = stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+TENANT\s+EVENT\s+STATUS\s+ATTEMPTS\s+CREATED\s+NEXT ATTEMPT\s+LAST RESULT\s+ENDPOINT$/);
    expect(lines).toHaveLength(5);
    expect(lines.slice(1, 3).every((line) => line.includes('pending'))).toBe(true);
    const failedLine = lines.find((line) => line.startsWith(failedId))!;
    expect(failedLine).toMatch(/\sacme\s+plant\.created\s+failed\s+1\b.*410 Gone/);
    expect(failedLine.endsWith(` ${subscriptionId(subscriptions[1]!.url)}`)).toBe(true);
    expect(lines.find((line) => line.startsWith(deliveredId))).toMatch(/\bdelivered\s+1\b.*\s204\s+sub_[0-9a-f]{24}$/);
  });

  it('filters by status, limits, and prints JSON with every attempt, as the HTTP API shows it', async () => {
    const failed = await run(['list', '--status', 'failed', '--json', '--db', db]);
    expect(failed.status).toBe(0);
    const deliveries = JSON.parse(failed.stdout) as Delivery[];
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toMatchObject({
      tenant: 'acme',
      id: failedId,
      status: 'failed',
      endpointId: subscriptionId(subscriptions[1]!.url),
      payload: { id: 1, name: 'Fern' },
    });
    expect(deliveries[0]!.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(deliveries[0]!.attempts).toEqual([expect.objectContaining({ statusCode: 410, at: expect.stringMatching(/Z$/) })]);

    const limited = await run(['list', '--limit=1', '--json', '--db', db]);
    expect((JSON.parse(limited.stdout) as Delivery[]).map((delivery) => delivery.status)).toEqual(['pending']);

    const viaEnv = await run(['list', '--status', 'delivered'], { PLANT_STORE_DB: db });
    expect(viaEnv.status).toBe(0);
    expect(viaEnv.stdout).toContain(deliveredId);
    expect(viaEnv.stdout).not.toContain(failedId);
  });

  it('rejects bad arguments with exit 2 and one line', async () => {
    for (const args of [
      [],
      ['frob'],
      ['list', '--status', 'bogus'],
      ['list', '--limit', '0'],
      ['list', '--limit', 'ten'],
      ['list', '--nope'],
      ['list', 'extra'],
      ['retry'],
      ['retry', 'a', 'b'],
      ['retry', 'a', '--json'],
      ['list', '--db'],
    ]) {
      const { status, stdout, stderr } = await run([...args], { PLANT_STORE_DB: db });
      expect({ args, status }).toEqual({ args, status: 2 });
      expect(stdout).toBe('');
      expect(stderr).toMatch(/^error: [^\n]+\n$/);
    }
    expect((await run(['list', '--status', 'bogus'])).stderr).toContain('--status must be one of pending, delivered, failed');
  });

  it('prints help', async () => {
    const { status, stdout } = await run(['--help']);
    expect(status).toBe(0);
    expect(stdout).toContain('plant-store webhooks retry <delivery-id>');
    expect(stdout).toContain('"waiting behind <message id>"');
  });

  it('fails with exit 1 for a missing database or an unknown or non-failed delivery', async () => {
    const missing = await run(['list', '--db', join(dir, 'nope.db')]);
    expect(missing).toEqual({ status: 1, stdout: '', stderr: `error: database ${join(dir, 'nope.db')} does not exist (set PLANT_STORE_DB or --db)\n` });
    const unknown = await run(['retry', 'msg_nope', '--db', db]);
    expect(unknown).toEqual({ status: 1, stdout: '', stderr: 'error: no delivery with id msg_nope\n' });
    const delivered = await run(['retry', deliveredId, '--db', db]);
    expect(delivered.status).toBe(1);
    expect(delivered.stderr).toBe(`error: delivery ${deliveredId} is delivered; only failed deliveries can be re-queued\n`);
  });

  it('re-queues a failed delivery, which a running service then sends', async () => {
    const { status, stdout } = await run(['retry', failedId, '--db', db]);
    expect(status).toBe(0);
    expect(stdout).toBe(`re-queued ${failedId} (1 attempt so far, counted by the retry schedule: one attempt if its retries ran out)\n`);
    const again = await run(['retry', failedId, '--db', db]);
    expect(again.status).toBe(1);
    expect(again.stderr).toContain('is pending');

    const sent: string[] = [];
    const service = createPlantStore({
      storage: await sqliteStorage({ path: db }),
      webhooks: {
        subscriptions,
        jitter: 0,
        transport: { send: async (request) => (sent.push(request.headers['webhook-id']!), { kind: 'delivered', statusCode: 200 }) },
      },
    });
    try {
      await eventually(async () => (await service.allTenants.webhooks.get(failedId)).status === 'delivered', 're-queued delivery sent');
      expect((await service.allTenants.webhooks.get(failedId)).attempts.map((attempt) => attempt.statusCode)).toEqual([410, 200]);
      expect(sent).toContain(failedId);
    } finally {
      await service.close();
    }
  });

  it("lists endpoints with their ordering, signature kind, custom header names (never the headers' values) and filter", async () => {
    const store = createPlantStore({ storage: await sqliteStorage({ path: db }) });
    const { endpoint } = await store.webhooks.endpoints.create(acme, {
      url: 'https://example.com/ordered',
      ordering: 'plant',
      headers: { 'X-Team': 'garden', Authorization: 'Bearer receiver-token' },
    });
    const { endpoint: signed } = await store.webhooks.endpoints.create(acme, {
      url: 'https://example.com/signed',
      signature: 'ed25519',
      filter: { 'data.tag': { $in: ['indoor', 'rare'] } },
    });
    await store.close();
    const { status, stdout } = await run(['endpoints', 'list', '--db', db]);
    expect(status).toBe(0);
    const lines = stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+TENANT\s+STATUS\s+KIND\s+EVENTS\s+ORDERING\s+SIGNATURE\s+HEADERS\s+FILTER\s+URL\s+DROPPED\s+DISABLED REASON$/);
    expect(lines.find((line) => line.startsWith(endpoint.id))).toMatch(
      /\sacme\s+enabled\s+http\s+plant\.created\s+plant\s+hmac\s+X-Team,Authorization\s+-\s+https:\/\/example\.com\/ordered\s+-\s+-$/,
    );
    expect(lines.find((line) => line.startsWith(signed.id))).toMatch(
      /\sacme\s+enabled\s+http\s+plant\.created\s+none\s+ed25519\s+-\s+\{"data\.tag":\{"\$in":\["indoor","rare"\]\}\}\s+https:\/\/example\.com\/signed\s+-\s+-$/,
    );
    const json = await run(['endpoints', 'list', '--db', db, '--json']);
    expect(JSON.parse(json.stdout).find((listed: { id: string }) => listed.id === signed.id)).toMatchObject({
      filter: { 'data.tag': { $in: ['indoor', 'rare'] } },
    });
    expect(stdout).not.toContain('receiver-token');
  });

  it('shows a message held behind an earlier one about the same plant as waiting behind it, in list, get and --json', async () => {
    const store = createPlantStore({ storage: await sqliteStorage({ path: db }) });
    const { endpoint } = await store.webhooks.endpoints.create(acme, {
      url: 'https://example.com/held',
      eventTypes: ['plant.created', 'plant.deleted'],
      ordering: 'plant',
    });
    await store.plants.create(acme, { id: 61, name: 'Palm' });
    await store.plants.delete(acme, 61);
    const [deleted, created] = await store.allTenants.webhooks.list({ endpointId: endpoint.id });
    await store.close();
    expect(deleted).toMatchObject({ eventType: 'plant.deleted', waitingBehind: created!.id });

    const listed = await run(['list', '--endpoint', endpoint.id, '--db', db]);
    expect(listed.status).toBe(0);
    const rows = listed.stdout.trimEnd().split('\n');
    expect(rows.find((line) => line.startsWith(deleted!.id))).toMatch(
      new RegExp(`\\splant\\.deleted\\s+pending\\s+0\\s+\\S+\\s+waiting behind ${created!.id}\\s`),
    );
    expect(rows.find((line) => line.startsWith(created!.id))).not.toContain('waiting behind');

    const shown = await run(['get', deleted!.id, '--db', db]);
    expect(shown.status).toBe(0);
    expect(shown.stdout).toContain(`next attempt: waiting behind ${created!.id}\n`);
    expect(shown.stdout).toMatch(
      new RegExp(`\\nwaiting behind ${created!.id} \\(an earlier message about the same plant\\): no attempt before that one ends\\n$`),
    );
    expect(shown.stdout).not.toContain('no attempts yet');
    expect((await run(['get', created!.id, '--db', db])).stdout).toMatch(/\nno attempts yet\n$/);

    const json = await run(['get', deleted!.id, '--json', '--db', db]);
    expect(JSON.parse(json.stdout)).toMatchObject({ id: deleted!.id, waitingBehind: created!.id, tenant: 'acme' });
  });
});

describe('plant-store webhooks (spawned CLI)', () => {
  const cli = (args: string[]) =>
    promisify(execFile)(process.execPath, ['--conditions=source', '--import', 'tsx', 'packages/server/src/cli.ts', 'webhooks', ...args], {
      cwd: root,
      env: { ...process.env, PLANT_STORE_DB: '' },
      timeout: 20_000,
    }).then(
      ({ stdout, stderr }) => ({ status: 0, stdout, stderr }),
      (error: { code?: number; stdout?: string; stderr?: string }) => ({ status: error.code, stdout: error.stdout ?? '', stderr: error.stderr ?? '' }),
    );

  it('lists the deliveries of a database file', async () => {
    const listed = await cli(['list', '--db', db]);
    expect(listed.stderr).toBe('');
    expect(listed.status).toBe(0);
    expect(listed.stdout).toContain(deliveredId);
    for (const id of pendingIds) expect(listed.stdout).toContain(id);

    const unknown = await cli(['retry', 'msg_nope', '--db', db]);
    expect(unknown).toEqual({ status: 1, stdout: '', stderr: 'error: no delivery with id msg_nope\n' });
  });
});
