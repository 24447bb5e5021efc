import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES, createPlantStore, type PlantStore } from '@plant-store/core';
import type { Storage } from '@plant-store/core/adapter';
import { postgresStorage } from '@plant-store/storage-postgres';
import { sqliteStorage } from '@plant-store/storage-sqlite';
import { postgresAvailable, TEST_DATABASE_URL, testSchemas } from '../support/postgres.js';
import { runCli as spawnCliToExit } from '../support/cli-process.js';
import { runCliInProcess } from '../support/run-cli-in-process.js';

// The operators' webhook commands on the storages a service really runs on:
// tenants' endpoints (list, disable, enable), resend and recover, on SQLite
// and on PostgreSQL, with the storage chosen by the same flags and variables
// as `serve`. Stores made here queue deliveries and send nothing.

const acme = { subject: 'tester', tenant: 'acme', scopes: ALL_SCOPES };
const globex = { subject: 'tester', tenant: 'globex', scopes: ALL_SCOPES };

interface Target {
  /** Flags that select the storage. */
  readonly flags: string[];
  /** The same storage through variables instead. */
  readonly env: Record<string, string>;
  open(): Promise<Storage>;
  cleanup(): Promise<void>;
}

async function sqliteTarget(): Promise<Target> {
  const dir = mkdtempSync(join(tmpdir(), 'plant-store-endpoints-cli-'));
  const db = join(dir, 'plant-store.db');
  return {
    flags: ['--db', db],
    env: { PLANT_STORE_DB: db },
    open: () => sqliteStorage({ path: db }),
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

async function postgresTarget(): Promise<Target> {
  const schemas = testSchemas();
  const schema = schemas.next();
  return {
    flags: ['--storage', 'postgres', '--database-url', TEST_DATABASE_URL, '--db-schema', schema],
    env: { PLANT_STORE_STORAGE: 'postgres', PLANT_STORE_DATABASE_URL: TEST_DATABASE_URL, PLANT_STORE_DB_SCHEMA: schema },
    open: () => postgresStorage({ connectionString: TEST_DATABASE_URL, schema }),
    cleanup: () => schemas.dropAll(),
  };
}

const targets = [
  { name: 'SQLite', make: sqliteTarget, skip: false },
  { name: 'PostgreSQL', make: postgresTarget, skip: !postgresAvailable },
];

describe.each(targets)('plant-store webhooks endpoints|resend|recover on $name', ({ make, skip }) => {
  let target: Target;
  let store: PlantStore;
  let acmeEndpoint: string;
  let globexEndpoint: string;
  let firstDelivery: string;

  const run = (args: string[], env: NodeJS.ProcessEnv = {}) => runCliInProcess(['webhooks', ...args], env);

  beforeAll(async () => {
    if (skip) return;
    target = await make();
    store = createPlantStore({ storage: await target.open() });
    acmeEndpoint = (await store.webhooks.endpoints.create(acme, { url: 'https://example.com/acme', eventTypes: ['plant.created', 'plant.deleted'] })).endpoint
      .id;
    globexEndpoint = (await store.webhooks.endpoints.create(globex, { url: 'https://example.com/globex' })).endpoint.id;
    await store.plants.create(acme, { id: 1, name: 'Fern' });
    await store.plants.create(acme, { id: 2, name: 'Ivy' });
    await store.plants.create(globex, { id: 1, name: 'Palm' });
    firstDelivery = (await store.webhooks.deliveries.list(acme, { endpoint: acmeEndpoint })).deliveries.at(-1)!.id;
  });
  afterAll(async () => {
    if (skip) return;
    await store.close();
    await target.cleanup();
  });

  it.skipIf(skip)("lists every tenant's endpoints, in pages", async () => {
    const listed = await run(['endpoints', 'list', ...target.flags]);
    expect(listed.stderr).toBe('');
    expect(listed.status).toBe(0);
    const lines = listed.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+TENANT\s+STATUS\s+KIND\s+EVENTS\s+ORDERING\s+SIGNATURE\s+HEADERS\s+FILTER\s+URL\s+DROPPED\s+DISABLED REASON$/);
    expect(lines.find((line) => line.startsWith(acmeEndpoint))).toMatch(
      /\sacme\s+enabled\s+http\s+plant\.created,plant\.deleted\s+none\s+hmac\s+-\s+-\s+https:\/\/example\.com\/acme\s+-\s+-$/,
    );
    expect(lines.find((line) => line.startsWith(globexEndpoint))).toMatch(
      /\sglobex\s+enabled\s+http\s+plant\.created\s+none\s+hmac\s+-\s+-\s+https:\/\/example\.com\/globex\s+-\s+-$/,
    );
    const [firstId, secondId] = [acmeEndpoint, globexEndpoint].sort();
    const page = await run(['endpoints', 'list', '--limit', '1', ...target.flags]);
    expect(page.stdout).toContain(firstId);
    expect(page.stdout).not.toContain(secondId);
    expect(page.stdout.trimEnd().split('\n').at(-1)).toBe(`more: --after ${firstId}`);
    const json = await run(['endpoints', 'list', '--json', '--after', firstId!], target.env);
    expect((JSON.parse(json.stdout) as { id: string; tenant: string }[]).map((endpoint) => endpoint.id)).toEqual([secondId]);
  });

  it.skipIf(skip)('disables an endpoint (its pending deliveries are parked) and enables it again, replaying them or discarding them', async () => {
    const byStatus = async (status: 'pending' | 'parked' | 'failed') =>
      (await store.webhooks.deliveries.list(acme, { endpoint: acmeEndpoint, status })).deliveries;
    const disabled = await run(['endpoints', 'disable', acmeEndpoint, '--reason', 'receiver migrating', ...target.flags]);
    expect(disabled).toEqual({ status: 0, stdout: `disabled ${acmeEndpoint} (receiver migrating)\n`, stderr: '' });
    expect(await store.webhooks.endpoints.get(acme, acmeEndpoint)).toMatchObject({ status: 'disabled', disabledReason: 'receiver migrating' });
    expect(await byStatus('parked')).toHaveLength(2);
    const listed = await run(['list', '--status', 'parked', '--endpoint', acmeEndpoint, ...target.flags]);
    expect(listed.stdout.trimEnd().split('\n').slice(1)).toEqual([
      expect.stringMatching(/^msg_\S+\s+acme\s+plant\.created\s+parked\s+0\s+\S+\s+when its endpoint is enabled\s+-\s+ep_/),
      expect.stringMatching(/^msg_\S+\s+acme\s+plant\.created\s+parked\s+0\s/),
    ]);

    const enabled = await run(['endpoints', 'enable', acmeEndpoint], target.env);
    expect(enabled).toEqual({
      status: 0,
      stdout: `enabled ${acmeEndpoint}: queued again, in order, the messages kept for it while it was disabled\n`,
      stderr: '',
    });
    const endpoint = await store.webhooks.endpoints.get(acme, acmeEndpoint);
    expect(endpoint.status).toBe('enabled');
    expect(endpoint.disabledReason).toBeUndefined();
    expect(await byStatus('pending')).toHaveLength(2);
    expect(await run(['endpoints', 'enable', acmeEndpoint, '--discard'], target.env)).toEqual({
      status: 0,
      stdout: `${acmeEndpoint} was already enabled: its deliveries are unchanged\n`,
      stderr: '',
    });
    expect(await byStatus('pending')).toHaveLength(2);

    await run(['endpoints', 'disable', acmeEndpoint, ...target.flags]);
    const replayed = await run(['endpoints', 'enable', acmeEndpoint, '--replay-since', '2000-01-02T03:04:05Z', ...target.flags]);
    expect(replayed.stdout).toBe(
      `enabled ${acmeEndpoint}: queued again, in order, the messages kept for it while it was disabled created since 2000-01-02T03:04:05.000Z, ` +
        `and discarded the older ones (they failed; plant-store webhooks recover --endpoint ${acmeEndpoint} --since <time> queues them again)\n`,
    );
    expect(await byStatus('pending')).toHaveLength(2);

    await run(['endpoints', 'disable', acmeEndpoint, ...target.flags]);
    const discarded = await run(['endpoints', 'enable', acmeEndpoint, '--discard', ...target.flags]);
    expect(discarded).toEqual({
      status: 0,
      stdout:
        `enabled ${acmeEndpoint}: discarded the messages kept for it while it was disabled ` +
        `(they failed; plant-store webhooks recover --endpoint ${acmeEndpoint} --since <time> queues them again)\n`,
      stderr: '',
    });
    const failed = await byStatus('failed');
    expect(failed.map((delivery) => delivery.attempts.at(-1)?.error)).toEqual(['parked message discarded', 'parked message discarded']);

    const recovered = await run(['recover', '--endpoint', acmeEndpoint, '--since', '1h', ...target.flags]);
    expect(recovered.status).toBe(0);
    expect(recovered.stdout).toMatch(new RegExp(`^queued again 2 failed deliveries to ${acmeEndpoint} created since \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z\\n$`));
    expect((await store.webhooks.deliveries.list(acme, { endpoint: acmeEndpoint, status: 'pending' })).deliveries).toHaveLength(2);
    const none = await run(['recover', '--endpoint', acmeEndpoint, '--since', '2000-01-01T00:00:00Z', ...target.flags]);
    expect(none.stdout).toBe(`queued again 0 failed deliveries to ${acmeEndpoint} created since 2000-01-01T00:00:00.000Z\n`);
  });

  it.skipIf(skip)('keeps at most PLANT_STORE_WEBHOOK_PARKED_LIMIT parked messages when it disables an endpoint, and says how many were dropped', async () => {
    const initech = { ...acme, tenant: 'initech' };
    const { id } = (await store.webhooks.endpoints.create(initech, { url: 'https://example.com/initech' })).endpoint;
    await store.plants.create(initech, { id: 1, name: 'Moss' });
    await store.plants.create(initech, { id: 2, name: 'Fig' });
    const disabled = await run(['endpoints', 'disable', id, ...target.flags], { PLANT_STORE_WEBHOOK_PARKED_LIMIT: '1' });
    expect(disabled.status).toBe(0);
    expect((await store.webhooks.deliveries.list(initech, { endpoint: id, status: 'parked' })).deliveries.map((delivery) => delivery.payload)).toEqual([
      '{"id":2,"name":"Fig"}',
    ]);
    const listed = await run(['endpoints', 'list', ...target.flags]);
    expect(listed.stdout.split('\n').find((line) => line.startsWith(id))).toMatch(/\shttps:\/\/example\.com\/initech\s+1\s+disabled by an operator$/);
    const enabled = await run(['endpoints', 'enable', id, ...target.flags]);
    expect(enabled.stdout).toBe(
      `enabled ${id}: queued again, in order, the messages kept for it while it was disabled; ` +
        '1 older message was dropped while it was disabled (more than PLANT_STORE_WEBHOOK_PARKED_LIMIT allows)\n',
    );
    expect(await run(['endpoints', 'enable', id, ...target.flags], { PLANT_STORE_WEBHOOK_PARKED_LIMIT: '-1' })).toMatchObject({ status: 2 });
    await store.webhooks.endpoints.delete(initech, id);
  });

  it.skipIf(skip)('resends a delivery in any state, keeping its id', async () => {
    // Discarding it when its endpoint was enabled logged one attempt; recover made it pending again.
    const before = await store.webhooks.deliveries.get(acme, firstDelivery);
    expect(before.attempts.map((attempt) => attempt.error)).toEqual(['parked message discarded']);
    const resent = await run(['resend', firstDelivery, ...target.flags]);
    expect(resent.status).toBe(0);
    expect(resent.stdout).toBe(`queued ${firstDelivery} again (was ${before.status}, 1 attempt so far)\n`);
    expect((await store.webhooks.deliveries.get(acme, firstDelivery)).status).toBe('pending');
  });

  it.skipIf(skip)('fails with exit 1 and one line for unknown ids, everywhere', async () => {
    for (const args of [
      ['endpoints', 'disable', 'ep_nope'],
      ['endpoints', 'enable', 'ep_nope'],
      ['resend', 'msg_nope'],
      ['get', 'msg_nope'],
      ['recover', '--endpoint', 'ep_nope', '--since', '2000-01-01T00:00:00Z'],
      ['recover', '--endpoint', 'sub_nope', '--since', '1h'],
      ['list', '--endpoint', 'ep_nope'],
    ]) {
      const result = await spawnCliToExit(['webhooks', ...args, ...target.flags]);
      expect({ args, code: result.code, stdout: result.stdout }).toEqual({ args, code: 1, stdout: '' });
      expect(result.stderr).toMatch(/^error: [^\n]*nope[^\n]*\n$/);
    }
    // A known endpoint with nothing to recover is no error.
    const recovered = await run(['recover', '--endpoint', globexEndpoint, '--since', '2000-01-01T00:00:00Z', ...target.flags]);
    expect(recovered).toEqual({
      status: 0,
      stdout: `queued again 0 failed deliveries to ${globexEndpoint} created since 2000-01-01T00:00:00.000Z\n`,
      stderr: '',
    });
  });

  it.skipIf(skip)('filters the delivery log by endpoint and tenant, and shows one delivery with its attempts', async () => {
    const byTenant = await spawnCliToExit(['webhooks', 'list', '--tenant', 'globex', ...target.flags]);
    expect(byTenant).toMatchObject({ code: 0, stderr: '' });
    const rows = byTenant.stdout.trimEnd().split('\n');
    expect(rows[0]).toMatch(/^ID\s+TENANT\s+EVENT\s+STATUS\s+/);
    expect(rows.slice(1)).toEqual([expect.stringMatching(new RegExp(`^msg_\\S+\\s+globex\\s+plant\\.created\\s+pending\\s.*${globexEndpoint}$`))]);

    const byEndpoint = await spawnCliToExit(['webhooks', 'list', '--endpoint', acmeEndpoint, '--json', ...target.flags]);
    expect(byEndpoint).toMatchObject({ code: 0, stderr: '' });
    const listed = JSON.parse(byEndpoint.stdout) as { tenant: string; endpointId: string; payload: unknown; createdAt: string }[];
    expect(listed.map((delivery) => [delivery.tenant, delivery.endpointId])).toEqual([
      ['acme', acmeEndpoint],
      ['acme', acmeEndpoint],
    ]);
    expect(listed.map((delivery) => delivery.payload)).toEqual([
      { id: 2, name: 'Ivy' },
      { id: 1, name: 'Fern' },
    ]);
    expect(listed[0]!.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    const shown = await spawnCliToExit(['webhooks', 'get', firstDelivery, ...target.flags]);
    expect(shown).toMatchObject({ code: 0, stderr: '' });
    expect(shown.stdout).toMatch(new RegExp(`^id: +${firstDelivery}\ntenant: +acme\nendpoint: +${acmeEndpoint}\nevent: +plant.created\n`));
    expect(shown.stdout).toContain('payload:      {"id":1,"name":"Fern"}\n');
    const json = await spawnCliToExit(['webhooks', 'get', firstDelivery, '--json', ...target.flags]);
    expect(JSON.parse(json.stdout)).toMatchObject({
      tenant: 'acme',
      id: firstDelivery,
      endpointId: acmeEndpoint,
      eventType: 'plant.created',
      payload: { id: 1, name: 'Fern' },
    });
  });

  it.skipIf(skip)('works as a spawned process too', async () => {
    const exit = await spawnCliToExit(['webhooks', 'endpoints', 'list', ...target.flags]);
    expect(exit.stderr).toBe('');
    expect(exit.code).toBe(0);
    expect(exit.stdout).toContain(acmeEndpoint);
  });
});

describe('plant-store webhooks: arguments and settings', () => {
  const run = (args: string[], env: NodeJS.ProcessEnv = {}) => runCliInProcess(['webhooks', ...args], env);

  it('rejects bad arguments with exit 2 and one line', async () => {
    for (const args of [
      ['endpoints'],
      ['endpoints', 'frob'],
      ['endpoints', 'disable'],
      ['endpoints', 'enable', 'a', 'b'],
      ['endpoints', 'list', '--limit', '0'],
      ['endpoints', 'list', '--status', 'failed'],
      ['endpoints', 'enable', 'ep_x', '--reason', 'x'],
      ['endpoints', 'enable', 'ep_x', '--discard', '--replay-since', '1h'],
      ['endpoints', 'enable', 'ep_x', '--replay-since', 'yesterday'],
      ['endpoints', 'enable', 'ep_x', '--replay-since', ''],
      ['endpoints', 'disable', 'ep_x', '--discard'],
      ['list', '--status', 'lost'],
      ['resend'],
      ['resend', 'msg_x', '--json'],
      ['recover', '--since', '1h'],
      ['recover', '--endpoint', 'ep_x'],
      ['recover', '--endpoint', 'ep_x', '--since', 'yesterday'],
      ['recover', '--endpoint', 'ep_x', '--since', '2026-13-45'],
      ['list', '--storage', 'mysql'],
      ['list', '--storage', 'postgres'],
      ['list', '--db', ''],
    ]) {
      const { status, stdout, stderr } = await run(args);
      expect({ args, status }).toEqual({ args, status: 2 });
      expect(stdout).toBe('');
      expect(stderr).toMatch(/^error: [^\n]+\(see plant-store webhooks --help\)\n$/);
    }
    expect((await run(['list', '--storage', 'postgres'])).stderr).toContain('PLANT_STORE_DATABASE_URL (--database-url): is required');
    expect((await run(['endpoints', 'enable', 'ep_x', '--discard', '--replay-since', '1h'])).stderr).toBe(
      'error: --discard and --replay-since cannot go together: --replay-since already discards the messages created before it (see plant-store webhooks --help)\n',
    );
    expect((await run(['list', '--status', 'lost'])).stderr).toContain('--status must be one of pending, delivered, failed, parked');
  });

  it('documents every command and the storage settings in --help', async () => {
    const { status, stdout } = await run(['--help']);
    expect(status).toBe(0);
    for (const text of [
      'plant-store webhooks endpoints list',
      'plant-store webhooks endpoints disable <endpoint-id>',
      'plant-store webhooks endpoints enable <endpoint-id> [--discard | --replay-since <time>]',
      'PLANT_STORE_WEBHOOK_PARKED_LIMIT',
      'plant-store webhooks resend <delivery-id>',
      'plant-store webhooks recover --endpoint <endpoint-id> --since <time>',
      'plant-store webhooks retry <delivery-id>',
      'plant-store webhooks get <delivery-id> [--json]',
      '--database-url URL',
      'PLANT_STORE_DB_SCHEMA',
    ]) {
      expect(stdout).toContain(text);
    }
  });
});
