import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { startServe, type ServeProcess } from '../support/cli-process.js';
import { postgresAvailable, TEST_DATABASE_URL, testSchemas } from '../support/postgres.js';
import { startReceiver, type ReceivedWebhook, type WebhookReceiver } from '../support/webhook-receiver.js';

// Ordered delivery per plant, end to end: the real service (one on SQLite; two on one PostgreSQL schema, SIGKILLed
// mid-attempt and replaced), a tenant endpoint with `"ordering": "plant"`, and a real receiver that fails or holds
// first attempts. Every plant's plant.created must have been answered before its plant.deleted is first attempted.

const TOKEN = 's3cret';
const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
const event = (request: ReceivedWebhook) => request.headers['plant-store-event']!;
const plantOf = (request: ReceivedWebhook) => Number(/"id":(-?\d+)/.exec(request.body)![1]);

const running: ServeProcess[] = [];
const receivers: WebhookReceiver[] = [];
const folder = mkdtempSync(join(tmpdir(), 'plant-store-ordered-'));
afterAll(async () => {
  await Promise.all(running.map((service) => service.stop('SIGKILL').catch(() => undefined)));
  await Promise.all(receivers.map((receiver) => receiver.close()));
  rmSync(folder, { recursive: true, force: true });
});

async function receiver(): Promise<WebhookReceiver> {
  const started = await startReceiver();
  receivers.push(started);
  return started;
}

async function serve(args: string[], env: Record<string, string> = {}): Promise<ServeProcess> {
  const service = await startServe(['--port', '0', '--tokens', `${TOKEN}=acme`, '--log-level', 'error', ...args], {
    env: { PLANT_STORE_WEBHOOK_ALLOW_PRIVATE: 'true', ...env },
  });
  running.push(service);
  return service;
}

async function call(base: string, method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${base}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
}

/** Creates the ordered endpoint; every plant is created, then deleted, through the instances in turn. */
async function createThenDelete(bases: readonly string[], url: string, plants: number): Promise<void> {
  const endpoint = await call(bases[0]!, 'POST', '/webhooks/endpoints', { url, eventTypes: ['plant.created', 'plant.deleted'], ordering: 'plant' });
  expect(endpoint.status).toBe(201);
  expect(await endpoint.json()).toMatchObject({ ordering: 'plant' });
  for (let id = 1; id <= plants; id++) {
    expect((await call(bases[id % bases.length]!, 'POST', '/plants', { id, name: `plant ${id}` })).status).toBe(200);
    expect((await call(bases[(id + 1) % bases.length]!, 'DELETE', `/plants/${id}`)).status).toBe(204);
  }
}

/** Waits until every plant's two messages were answered 204. */
async function waitForAll(hooks: WebhookReceiver, plants: number, answered: (request: ReceivedWebhook) => boolean, timeout: number): Promise<void> {
  await vi.waitFor(() => expect(new Set(hooks.received.filter(answered).map((request) => request.headers['webhook-id'])).size).toBe(2 * plants), {
    timeout,
    interval: 200,
  });
}

/** For each plant, every attempt of plant.deleted arrived after the last attempt of plant.created (the one answered 204). */
function expectOrderPerPlant(hooks: WebhookReceiver, plants: number): void {
  for (let id = 1; id <= plants; id++) {
    const attempts = hooks.received.filter((request) => plantOf(request) === id);
    const created = attempts.filter((request) => event(request) === 'plant.created');
    const deleted = attempts.filter((request) => event(request) === 'plant.deleted');
    expect(created.length, `plant ${id}`).toBeGreaterThan(0);
    expect(deleted.length, `plant ${id}`).toBeGreaterThan(0);
    const lastCreated = attempts.lastIndexOf(created.at(-1)!);
    const firstDeleted = attempts.indexOf(deleted[0]!);
    expect(firstDeleted, `plant ${id}: ${attempts.map(event).join(', ')}`).toBeGreaterThan(lastCreated);
  }
}

describe('ordered delivery per plant through the real service', () => {
  it('on SQLite: a retried plant.created still arrives before its plant.deleted, and a failing plant holds back no other', { timeout: 60_000 }, async () => {
    const hooks = await receiver();
    const PLANTS = 12;
    const attemptsOf = new Map<string, number>();
    let stuckSucceededAt = Number.POSITIVE_INFINITY;
    // plant.created fails once for every plant, five times for plant 1.
    hooks.reply((request) => {
      const id = request.headers['webhook-id']!;
      const attempt = (attemptsOf.get(id) ?? 0) + 1;
      attemptsOf.set(id, attempt);
      if (event(request) !== 'plant.created') return { status: 204 };
      const failures = plantOf(request) === 1 ? 5 : 1;
      if (attempt <= failures) return { status: 500 };
      if (plantOf(request) === 1) stuckSucceededAt = request.at;
      return { status: 204 };
    });
    const service = await serve(['--storage', 'sqlite', '--db', join(folder, 'ordered.db'), '--webhook-retry', '300ms,300ms,300ms,300ms,300ms,300ms']);
    await createThenDelete([service.url], hooks.url('/ordered'), PLANTS);
    await waitForAll(hooks, PLANTS, (request) => event(request) === 'plant.deleted' || (attemptsOf.get(request.headers['webhook-id']!) ?? 0) > 1, 30_000);

    expectOrderPerPlant(hooks, PLANTS);
    // Plant 2, queued just after plant 1, ran its line to the end while plant 1's first message was still being retried.
    const plant2Done = hooks.received.find((request) => plantOf(request) === 2 && event(request) === 'plant.deleted')!;
    expect(plant2Done.at).toBeLessThan(stuckSucceededAt);
  });

  describe.skipIf(!postgresAvailable)('on PostgreSQL', () => {
    const schemas = testSchemas();
    afterAll(() => schemas.dropAll());

    it('holds with two instances claiming at once, through a SIGKILL of both mid-attempt and two new ones', { timeout: 120_000 }, async () => {
      const hooks = await receiver();
      const PLANTS = 30;
      let held = false;
      // Plant 1's first plant.created attempt hangs until its instance is killed; every other first attempt of a plant.created fails.
      const attemptsOf = new Map<string, number>();
      hooks.reply((request) => {
        const id = request.headers['webhook-id']!;
        const attempt = (attemptsOf.get(id) ?? 0) + 1;
        attemptsOf.set(id, attempt);
        if (event(request) !== 'plant.created' || attempt > 1) return { status: 204 };
        if (plantOf(request) !== 1) return { status: 500 };
        held = true;
        return 'hang';
      });
      const schema = schemas.next();
      const args = ['--storage', 'postgres', '--db-schema', schema, '--webhook-timeout', '5s', '--webhook-retry', '100ms,200ms,300ms,400ms,500ms'];
      const env = { PLANT_STORE_DATABASE_URL: TEST_DATABASE_URL };
      const first = [await serve(args, env), await serve(args, env)];
      await createThenDelete(
        first.map((service) => service.url),
        hooks.url('/ordered'),
        PLANTS,
      );
      await vi.waitFor(() => expect(held).toBe(true), { timeout: 20_000, interval: 50 });
      await Promise.all(first.map((service) => service.stop('SIGKILL')));
      const heldSince = Date.now();
      await serve(args, env);
      await serve(args, env);

      // The lease of the killed attempt runs out (timeout + 10 s); until then plant 1's plant.deleted waits.
      await waitForAll(hooks, PLANTS, (request) => event(request) === 'plant.deleted' || (attemptsOf.get(request.headers['webhook-id']!) ?? 0) > 1, 60_000);
      expectOrderPerPlant(hooks, PLANTS);
      const plant1Deleted = hooks.received.find((request) => plantOf(request) === 1 && event(request) === 'plant.deleted')!;
      expect(plant1Deleted.at).toBeGreaterThan(heldSince);
      expect(hooks.concurrentDuplicates()).toBe(0);
    });
  });
});
