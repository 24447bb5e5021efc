import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { READY_LINE, spawnCli, type CliProcess } from '../support/cli-process.js';
import { postgresAvailable, TEST_DATABASE_URL, testSchemas } from '../support/postgres.js';
import { startReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

// Endpoint filters end to end: the real service (on SQLite; two instances on one PostgreSQL schema, one changing a
// filter the other has already matched writes against), tenant endpoints with filters and a real receiver. A receiver
// gets exactly the events its filter matches; a marker endpoint without a filter, created last, tells when all are in.

const TOKEN = 's3cret';
const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };

const running: CliProcess[] = [];
const receivers: WebhookReceiver[] = [];
const folder = mkdtempSync(join(tmpdir(), 'plant-store-filters-'));
afterAll(async () => {
  await Promise.all(running.map((service) => service.stop('SIGKILL').catch(() => undefined)));
  await Promise.all(receivers.map((receiver) => receiver.close()));
  rmSync(folder, { recursive: true, force: true });
});

/** The service from its sources; it may take a while to start on a busy machine (tsx compiles them first). */
async function serve(args: string[], env: Record<string, string> = {}): Promise<{ url: string }> {
  const service = spawnCli(['serve', '--port', '0', '--tokens', `${TOKEN}=acme`, '--log-level', 'error', ...args], {
    env: { PLANT_STORE_WEBHOOK_ALLOW_PRIVATE: 'true', ...env },
  });
  running.push(service);
  return { url: (await service.waitForStdout(READY_LINE, 90_000))[1]! };
}

async function call(base: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  const response = await fetch(`${base}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await response.text();
  return { status: response.status, json: text === '' ? undefined : JSON.parse(text) };
}

async function createEndpoint(base: string, body: Record<string, unknown>): Promise<string> {
  const created = await call(base, 'POST', '/webhooks/endpoints', body);
  expect(created.status, JSON.stringify(created.json)).toBe(201);
  return (created.json as { id: string }).id;
}

/** What arrived at `path`: event type and plant id of each message. */
const arrivedAt = (hooks: WebhookReceiver, path: string) =>
  hooks
    .at(path)
    .map((request) => `${request.headers['plant-store-event']}:${/"id":(\d+)/.exec(request.body)![1]}`)
    .sort();

describe('endpoint filters end to end', () => {
  it('on SQLite: each receiver gets the events its filter matches, test events included; the filter is shown and checked', { timeout: 120_000 }, async () => {
    const hooks = await startReceiver();
    receivers.push(hooks);
    const { url: base } = await serve(['--storage', 'sqlite', '--db', join(folder, 'filters.db')]);
    const both = ['plant.created', 'plant.deleted'];
    const indoor = await createEndpoint(base, { url: hooks.url('/indoor'), filter: { 'data.tag': { $in: ['indoor', 'rare'] } } });
    await createEndpoint(base, { url: hooks.url('/deleted-big'), eventTypes: both, filter: { type: 'plant.deleted', 'data.id': { $gte: 100 } } });
    await createEndpoint(base, { url: hooks.url('/untagged'), filter: { 'data.tag': { $exists: false } } });

    // Refused operators never get stored: a 400 names the path.
    const regex = await call(base, 'POST', '/webhooks/endpoints', { url: hooks.url('/x'), filter: { 'data.name': { $regex: '^M' } } });
    expect(regex).toEqual({ status: 400, json: { error: 400, message: expect.stringMatching(/^filter\.data\.name\.\$regex is not an operator/) } });
    const where = await call(base, 'PATCH', `/webhooks/endpoints/${indoor}`, { filter: { $where: 'true' } });
    expect(where).toEqual({ status: 400, json: { error: 400, message: expect.stringMatching(/^filter\.\$where /) } });
    expect(await call(base, 'GET', `/webhooks/endpoints/${indoor}`)).toMatchObject({ json: { filter: { 'data.tag': { $in: ['indoor', 'rare'] } } } });

    // Try a filter against the catalogue's examples before saving it.
    expect(await call(base, 'POST', '/webhooks/filter-check', { filter: { 'data.tag': 'indoor' } })).toEqual({
      status: 200,
      json: {
        results: [
          { eventType: 'plant.created', matches: true },
          { eventType: 'plant.deleted', matches: false },
          { eventType: 'webhook.endpoint.disabled', matches: false },
          { eventType: 'webhook.delivery.failed', matches: false },
        ],
      },
    });

    for (const [id, tag] of [
      [1, 'indoor'],
      [2, 'outdoor'],
      [3, 'rare'],
      [100, undefined],
      [101, 'indoor'],
    ] as const) {
      expect((await call(base, 'POST', '/plants', { id, name: `plant ${id}`, ...(tag ? { tag } : {}) })).status).toBe(200);
    }
    for (const id of [1, 101]) expect((await call(base, 'DELETE', `/plants/${id}`)).status).toBe(204);
    // A test event respects the filter: the example (tag "indoor") matches; a plant.deleted example does not.
    expect((await call(base, 'POST', `/webhooks/endpoints/${indoor}/test`, { eventType: 'plant.created' })).status).toBe(202);
    const refusedTest = await call(base, 'POST', `/webhooks/endpoints/${indoor}/test`, { eventType: 'plant.deleted' });
    expect(refusedTest).toEqual({ status: 409, json: { error: 409, message: expect.stringMatching(/does not match the filter/) } });

    await createEndpoint(base, { url: hooks.url('/marker') });
    expect((await call(base, 'POST', '/plants', { id: 999, name: 'marker' })).status).toBe(200);
    await hooks.waitFor(1, { path: '/marker' });
    await hooks.waitFor(4, { path: '/indoor' });
    await hooks.waitFor(1, { path: '/deleted-big' });
    await hooks.waitFor(1, { path: '/untagged' });
    expect(arrivedAt(hooks, '/indoor')).toEqual(['plant.created:1', 'plant.created:101', 'plant.created:3', `plant.created:9223372036854775807`]);
    expect(arrivedAt(hooks, '/deleted-big')).toEqual(['plant.deleted:101']);
    // Plant 999 has no tag either: created after the marker endpoint, it is in too.
    await hooks.waitFor(2, { path: '/untagged' });
    expect(arrivedAt(hooks, '/untagged')).toEqual(['plant.created:100', 'plant.created:999']);
  });

  describe.skipIf(!postgresAvailable)('on PostgreSQL', () => {
    const schemas = testSchemas();
    afterAll(() => schemas.dropAll());

    it('an instance matches its writes against a filter another instance changed or added since its last write', { timeout: 180_000 }, async () => {
      const hooks = await startReceiver();
      receivers.push(hooks);
      const args = ['--storage', 'postgres', '--db-schema', schemas.next()];
      const env = { PLANT_STORE_DATABASE_URL: TEST_DATABASE_URL };
      const [a, b] = [await serve(args, env), await serve(args, env)];
      const endpoint = await createEndpoint(a.url, { url: hooks.url('/filtered'), filter: { 'data.tag': 'indoor' } });
      expect((await call(a.url, 'POST', '/plants', { id: 1, name: 'one', tag: 'indoor' })).status).toBe(200);
      expect((await call(a.url, 'POST', '/plants', { id: 2, name: 'two', tag: 'rare' })).status).toBe(200);
      // Instance b changes the filter and adds an endpoint with one; instance a's next writes follow both.
      expect((await call(b.url, 'PATCH', `/webhooks/endpoints/${endpoint}`, { filter: { 'data.tag': 'rare' } })).status).toBe(200);
      await createEndpoint(b.url, { url: hooks.url('/added'), filter: { 'data.id': { $gt: 3 } } });
      expect((await call(a.url, 'POST', '/plants', { id: 3, name: 'three', tag: 'indoor' })).status).toBe(200);
      expect((await call(a.url, 'POST', '/plants', { id: 4, name: 'four', tag: 'rare' })).status).toBe(200);
      expect((await call(b.url, 'PATCH', `/webhooks/endpoints/${endpoint}`, { filter: null })).status).toBe(200);
      expect((await call(a.url, 'POST', '/plants', { id: 5, name: 'five', tag: 'indoor' })).status).toBe(200);

      await createEndpoint(a.url, { url: hooks.url('/marker') });
      expect((await call(a.url, 'POST', '/plants', { id: 6, name: 'marker' })).status).toBe(200);
      await hooks.waitFor(1, { path: '/marker' });
      await hooks.waitFor(4, { path: '/filtered' });
      await hooks.waitFor(3, { path: '/added' });
      expect(arrivedAt(hooks, '/filtered')).toEqual(['plant.created:1', 'plant.created:4', 'plant.created:5', 'plant.created:6']);
      expect(arrivedAt(hooks, '/added')).toEqual(['plant.created:4', 'plant.created:5', 'plant.created:6']);
    });
  });
});
