import { randomBytes } from 'node:crypto';
import { memoryStorage } from '@plant-store/storage-memory';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { createPlantStore } from '../composition/create-plant-store.js';
import type { PlantStore, PlantStoreWebhookOptions } from '../composition/plant-store.js';
import { ALL_SCOPES, type Principal } from '../domain/principal.js';
import type { LogFields, Logger } from '../ports/logger.js';
import type { Storage } from '../ports/storage.js';
import type { WebhookOutbox } from '../ports/webhook-outbox.js';
import type { WebhookRequest, WebhookSendOutcome, WebhookTransport } from '../ports/webhook-transport.js';
import { systemClock } from '../ports/clock.js';
import { validate } from '../domain/validate.js';
import { StorageError } from '../errors.js';
import { subscriptionTargets } from './delivery-targets.js';
import { DEFAULT_USER_AGENT } from './webhook-defaults.js';
import { WebhookDispatcher } from './webhook-dispatcher.js';
import { WebhookSubscriptionSchema, subscriptionId } from './webhook-subscription.js';
import { eventually } from '../../../../test/support/eventually.js';

const acme: Principal = { subject: 'tester', tenant: 'acme', scopes: ALL_SCOPES };
const globex: Principal = { subject: 'tester', tenant: 'globex', scopes: ALL_SCOPES };
const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

interface Sent extends WebhookRequest {
  readonly sentAt: number;
}

const answered = (statusCode: number): WebhookSendOutcome =>
  statusCode >= 200 && statusCode < 300
    ? { kind: 'delivered', statusCode }
    : statusCode === 410
      ? { kind: 'gone', statusCode, reason: 'receiver answered 410 Gone' }
      : { kind: 'retry', statusCode, reason: `receiver answered ${statusCode}` };

/** A receiver that never answers; the attempt ends only when the dispatcher aborts it (as the port asks of transports). */
const hang = (request: WebhookRequest) =>
  new Promise<WebhookSendOutcome>((resolve) => request.signal.addEventListener('abort', () => resolve({ kind: 'retry', reason: 'aborted' }), { once: true }));

/** A transport that ignores the abort (against the port's contract): its attempts never end. */
const ignoreAbort = () => new Promise<WebhookSendOutcome>(() => {});

/** The dispatcher's view of subscriptions, validated as `createPlantStore` does. */
const targetsOf = (...subscriptions: object[]) => subscriptionTargets(subscriptions.map((entry) => validate(WebhookSubscriptionSchema, entry)));

/** An in-memory transport: records every request and answers with `respond`. */
function fakeTransport(respond: (request: WebhookRequest, sent: Sent[]) => WebhookSendOutcome | Promise<WebhookSendOutcome> = () => answered(204)) {
  const sent: Sent[] = [];
  const transport: WebhookTransport = {
    async send(request) {
      sent.push({ ...request, sentAt: Date.now() });
      return respond(request, sent);
    },
  };
  return { transport, sent };
}

function recordingLogger() {
  const lines: { level: string; message: string; fields?: LogFields }[] = [];
  const at = (level: string) => (message: string, fields?: LogFields) => void lines.push({ level, message, fields });
  const logger: Logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
  return { logger, lines };
}

/** `outbox` with its `claimDue` replaced; every other method goes to `outbox`. */
function withClaimDue(outbox: WebhookOutbox, claimDue: WebhookOutbox['claimDue']): WebhookOutbox {
  return {
    claimDue,
    recordAttempt: (...args) => outbox.recordAttempt(...args),
    release: (...args) => outbox.release(...args),
    nextDueAt: () => outbox.nextDueAt(),
    pendingStats: () => outbox.pendingStats(),
    waitingSince: (now) => outbox.waitingSince(now),
    prune: (options) => outbox.prune(options),
    get: (id) => outbox.get(id),
    list: (query) => outbox.list(query),
    requeue: (selector, now) => outbox.requeue(selector, now),
    endpointAttemptStats: (...args) => outbox.endpointAttemptStats(...args),
    enqueue: (delivery) => outbox.enqueue(delivery),
    stuckLines: (limit) => outbox.stuckLines(limit),
    releaseStuckLine: (...args) => outbox.releaseStuckLine(...args),
  };
}

/** `storage` with some of its outbox's methods replaced; everything else goes to `storage`. */
function withOutbox(storage: Storage, overrides: Partial<WebhookOutbox>): Storage {
  const outbox = storage.outbox;
  return {
    ...storage,
    ping: () => storage.ping(),
    close: () => storage.close(),
    outbox: { ...withClaimDue(outbox, (options) => outbox.claimDue(options)), ...overrides },
  };
}

const stores: PlantStore[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
});

function storeWith(webhooks: PlantStoreWebhookOptions, storage: Storage = memoryStorage(), logger?: Logger): PlantStore {
  const store = createPlantStore({
    storage,
    logger,
    webhooks: { retrySchedule: [20, 40, 80], timeoutMs: 500, jitter: 0, pollIntervalMs: 60_000, ...webhooks },
  });
  stores.push(store);
  return store;
}

describe('WebhookDispatcher', () => {
  it('sends the first attempt on wake, not on the poll, with exact body and verifiable Standard Webhooks headers', async () => {
    const secret = newSecret();
    const { transport, sent } = fakeTransport();
    const store = storeWith({ transport, subscriptions: [{ url: 'http://hooks.test/a', secret }] });
    await store.plants.create(acme, { id: 9223372036854775807n, name: 'Fern' });
    // pollIntervalMs is a minute: only the wake on commit can get it out this fast.
    await eventually(() => sent.length === 1, 'the first attempt');
    const [request] = sent;
    expect(request!.url).toBe('http://hooks.test/a');
    expect(request!.body).toBe('{"id":9223372036854775807,"name":"Fern"}');
    expect(request!.timeoutMs).toBe(500);
    expect(Object.keys(request!.headers).sort()).toEqual(
      ['content-type', 'plant-store-event', 'user-agent', 'webhook-id', 'webhook-signature', 'webhook-timestamp'].sort(),
    );
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.headers['plant-store-event']).toBe('plant.created');
    expect(request!.headers['user-agent']).toBe(DEFAULT_USER_AGENT);
    expect(DEFAULT_USER_AGENT).toMatch(/^plant-store\/\d+\.\d+\.\d+/);
    expect(request!.headers['webhook-id']).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(Math.abs(Number(request!.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(5);
    expect(new Webhook(secret).verify(request!.body, request!.headers)).toEqual({ id: 9223372036854775807, name: 'Fern' });
    await eventually(async () => (await store.allTenants.webhooks.list())[0]?.status === 'delivered', 'delivered status');
    const [delivery] = await store.allTenants.webhooks.list();
    expect(delivery).toMatchObject({ id: request!.headers['webhook-id'], attemptCount: 1, status: 'delivered' });
    expect(delivery!.attempts[0]).toMatchObject({ statusCode: 204 });
    expect(delivery!.attempts[0]!.error).toBeUndefined();
  });

  it('retries on the schedule with the same webhook-id and a fresh signature until a 2xx', async () => {
    const secret = newSecret();
    const { transport, sent } = fakeTransport((_, all) => (all.length <= 2 ? answered(500) : answered(200)));
    const store = storeWith({ transport, subscriptions: [{ url: 'http://hooks.test/a', secret }] });
    await store.plants.create(acme, { id: 1, name: 'Fern', tag: 'green' });
    await eventually(async () => (await store.allTenants.webhooks.list())[0]?.status === 'delivered', 'delivery after retries');
    expect(sent).toHaveLength(3);
    expect(new Set(sent.map((request) => request.headers['webhook-id'])).size).toBe(1);
    for (const request of sent) expect(() => new Webhook(secret).verify(request.body, request.headers)).not.toThrow();
    expect(sent[1]!.sentAt - sent[0]!.sentAt).toBeGreaterThanOrEqual(19);
    expect(sent[2]!.sentAt - sent[1]!.sentAt).toBeGreaterThanOrEqual(39);
    const [delivery] = await store.allTenants.webhooks.list();
    expect(delivery!.attempts.map((attempt) => attempt.statusCode)).toEqual([500, 500, 200]);
    expect(delivery!.attempts[0]!.error).toBe('receiver answered 500');
  });

  it('fails after the last scheduled retry, keeps the attempts, and delivers after a requeue', async () => {
    let healthy = false;
    const { transport, sent } = fakeTransport(() => (healthy ? answered(200) : { kind: 'retry', reason: 'connect ECONNREFUSED' }));
    const store = storeWith({ transport, subscriptions: [{ url: 'http://hooks.test/a', secret: newSecret() }] });
    await store.plants.create(acme, { id: 1, name: 'Fern' });
    await eventually(async () => (await store.allTenants.webhooks.list())[0]?.status === 'failed', 'failed status');
    const [failed] = await store.allTenants.webhooks.list({ status: 'failed' });
    expect(failed!.attemptCount).toBe(4);
    expect(failed!.attempts.every((attempt) => attempt.error === 'connect ECONNREFUSED')).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(sent).toHaveLength(4);

    healthy = true;
    await store.allTenants.webhooks.requeue(failed!.id);
    await eventually(async () => (await store.allTenants.webhooks.get(failed!.id)).status === 'delivered', 'delivery after requeue');
    expect((await store.allTenants.webhooks.get(failed!.id)).attemptCount).toBe(5);
    await expect(store.allTenants.webhooks.requeue(failed!.id)).rejects.toThrow(/no failed delivery/);
  });

  it('stops retrying on 410 Gone', async () => {
    const { transport, sent } = fakeTransport(() => answered(410));
    const store = storeWith({ transport, subscriptions: [{ url: 'http://hooks.test/a', secret: newSecret() }] });
    await store.plants.create(acme, { id: 1, name: 'Fern' });
    await eventually(async () => (await store.allTenants.webhooks.list())[0]?.status === 'failed', 'failed status');
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(sent).toHaveLength(1);
  });

  it('emits webhook.attempted after each recorded attempt, naming its outcome (no tenant, no url)', async () => {
    const { transport } = fakeTransport((request) => {
      if (request.url.endsWith('/ok')) return { kind: 'delivered', statusCode: 200 };
      if (request.url.endsWith('/gone')) return { kind: 'gone', reason: 'receiver answered 410', statusCode: 410 };
      return { kind: 'retry', reason: 'receiver answered 500', statusCode: 500 };
    });
    const urls = ['http://hooks.test/ok', 'http://hooks.test/gone', 'http://hooks.test/flaky'];
    const store = storeWith({ transport, subscriptions: urls.map((url) => ({ url, secret: newSecret() })) });
    const events: { outcome: string; durationMs: number }[] = [];
    store.events.on('webhook.attempted', (event) => void events.push(event));
    await store.plants.create(acme, { id: 1, name: 'Fern' });
    await eventually(async () => (await store.allTenants.webhooks.list({ status: 'pending' })).length === 0, 'every delivery settled');
    const counts: Record<string, number> = {};
    for (const event of events) counts[event.outcome] = (counts[event.outcome] ?? 0) + 1;
    // The flaky endpoint: 3 retries (schedule of 3), then failed.
    expect(counts).toEqual({ delivered: 1, gone: 1, retry: 3, failed: 1 });
    for (const event of events) {
      expect(Object.keys(event).sort()).toEqual(['durationMs', 'outcome']);
      expect(event.durationMs).toBeGreaterThanOrEqual(0);
    }
  });

  it('sends each subscription its tenant only, and nothing for a replayed create', async () => {
    const all = { url: 'http://hooks.test/all', secret: newSecret() };
    const onlyAcme = { url: 'http://hooks.test/acme', secret: newSecret(), tenant: 'acme' };
    const { transport, sent } = fakeTransport();
    const store = storeWith({ transport, subscriptions: [all, onlyAcme] });
    await store.plants.create(acme, { id: 1, name: 'A' });
    await store.plants.create(globex, { id: 2, name: 'G' });
    await store.plants.create(acme, { id: 1, name: 'A' }); // replay
    await eventually(() => sent.length >= 3, 'three deliveries');
    await new Promise((resolve) => setTimeout(resolve, 100));
    const to = (url: string) =>
      sent
        .filter((request) => request.url === url)
        .map((request) => request.body)
        .sort();
    expect(to(all.url)).toEqual(['{"id":1,"name":"A"}', '{"id":2,"name":"G"}']);
    expect(to(onlyAcme.url)).toEqual(['{"id":1,"name":"A"}']);
    for (const request of sent) {
      const secret = request.url === all.url ? all.secret : onlyAcme.secret;
      expect(() => new Webhook(secret).verify(request.body, request.headers)).not.toThrow();
    }
  });

  it('fails a delivery whose endpoint no longer has a subscription', async () => {
    const storage = memoryStorage();
    const producer = createPlantStore({ storage, webhooks: { subscriptions: [{ url: 'http://hooks.test/old', secret: newSecret() }] } });
    await producer.plants.create(acme, { id: 1, name: 'Fern' });
    const { transport, sent } = fakeTransport();
    const store = storeWith({ transport, subscriptions: [{ url: 'http://hooks.test/new', secret: newSecret() }] }, storage);
    await eventually(async () => (await store.allTenants.webhooks.list())[0]?.status === 'failed', 'failed status');
    expect((await store.allTenants.webhooks.list())[0]!.attempts).toEqual([expect.objectContaining({ error: 'no subscription for this endpoint' })]);
    expect(sent).toHaveLength(0);
  });

  it("attempts the next message of a plant's line as soon as the one before it is delivered, not on the poll", async () => {
    // The first attempt of each plant.created fails, so the plant.deleted behind it waits for the retry to succeed.
    const { transport, sent } = fakeTransport((request, all) =>
      answered(request.body.includes('"name"') && all.filter((other) => other.body === request.body).length === 1 ? 500 : 204),
    );
    const store = storeWith({ transport, allowPrivateDestinations: true });
    await store.webhooks.endpoints.create(acme, { url: 'http://hooks.test/ordered', eventTypes: ['plant.created', 'plant.deleted'], ordering: 'plant' });
    await store.plants.create(acme, { id: 7, name: 'Fern' });
    await store.plants.delete(acme, 7);
    await eventually(() => sent.length === 3, 'three attempts');
    expect(sent.map((request) => request.body)).toEqual(['{"id":7,"name":"Fern"}', '{"id":7,"name":"Fern"}', '{"id":7}']);
  });

  it('does not let a hanging endpoint hold up a healthy one', async () => {
    const { transport, sent } = fakeTransport((request) => (request.url.endsWith('/slow') ? hang(request) : answered(200)));
    const store = storeWith({
      transport,
      concurrency: 8,
      perEndpointConcurrency: 2,
      stopTimeoutMs: 10,
      subscriptions: [
        { url: 'http://hooks.test/slow', secret: newSecret() },
        { url: 'http://hooks.test/fast', secret: newSecret() },
      ],
    });
    for (let id = 1; id <= 30; id++) await store.plants.create(acme, { id, name: `P${id}` });
    await eventually(() => sent.filter((request) => request.url.endsWith('/fast')).length === 30, 'all fast deliveries');
    // The slow endpoint never has more than its cap in flight.
    expect(sent.filter((request) => request.url.endsWith('/slow'))).toHaveLength(2);
  });

  it('tells how long due deliveries wait for a slot, by whether their endpoint is slow', async () => {
    const { transport } = fakeTransport((request) => (request.url.endsWith('/slow') ? hang(request) : answered(200)));
    const store = storeWith({
      transport,
      perEndpointConcurrency: 1,
      slowAttemptMs: 20,
      stopTimeoutMs: 10,
      subscriptions: [
        { url: 'http://hooks.test/slow', secret: newSecret() },
        { url: 'http://hooks.test/fast', secret: newSecret() },
      ],
    });
    for (let id = 1; id <= 3; id++) await store.plants.create(acme, { id, name: `P${id}` });
    // The slow endpoint's first attempt hangs past the mark; its other two wait behind it, the fast endpoint's none.
    await eventually(async () => (await store.allTenants.webhooks.queueDelay()).slow > 0, 'a wait on the slow endpoint');
    const delay = await store.allTenants.webhooks.queueDelay();
    expect(delay.responsive).toBe(0);
    expect(delay.all).toBe(delay.slow);
  });

  it('does not go to storage on every commit while every endpoint is at its cap', async () => {
    const { transport, sent } = fakeTransport(hang);
    const storage = memoryStorage();
    const outbox = storage.outbox;
    let claims = 0;
    const counting = withOutbox(storage, {
      claimDue: (options) => {
        claims++;
        return outbox.claimDue(options);
      },
    });
    const store = storeWith(
      { transport, perEndpointConcurrency: 2, stopTimeoutMs: 10, subscriptions: [{ url: 'http://hooks.test/hangs', secret: newSecret() }] },
      counting,
    );
    for (let id = 1; id <= 3; id++) await store.plants.create(acme, { id, name: `P${id}` });
    await eventually(() => sent.length === 2, 'the endpoint at its cap');
    for (let turn = 0; turn < 5; turn++) await new Promise(setImmediate);
    const claimsAtCap = claims;
    for (let id = 4; id <= 23; id++) {
      await store.plants.create(acme, { id, name: `P${id}` });
      // Let each commit's wake run on its own.
      await new Promise(setImmediate);
      await new Promise(setImmediate);
    }
    expect(claims).toBe(claimsAtCap);
    expect(sent).toHaveLength(2);
  });

  it('does not claim every few ms while a due delivery is held by another transaction: it looks again on the poll or a wake', async () => {
    const { transport, sent } = fakeTransport();
    const storage = memoryStorage();
    let claims = 0;
    // Another transaction holds the due delivery: every claim passes over it, as SKIP LOCKED does.
    const held = withOutbox(storage, {
      claimDue: async () => {
        claims++;
        return [];
      },
    });
    const store = storeWith({ transport, subscriptions: [{ url: 'http://hooks.test/held', secret: newSecret() }] }, held);
    await store.plants.create(acme, { id: 1, name: 'P1' });
    await eventually(() => claims > 0, 'a claim');
    // Many times the 5 ms a re-poll would take.
    for (let turn = 0; turn < 20; turn++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(claims).toBeLessThanOrEqual(2);
    expect(sent).toEqual([]);
  });

  it('claims no more than a busy endpoint has room for: nothing is leased only to be released', async () => {
    // Each attempt takes a few ms, so slots free one by one while a backlog waits.
    const { transport, sent } = fakeTransport(() => new Promise((resolve) => setTimeout(() => resolve(answered(200)), 2)));
    const storage = memoryStorage();
    const producer = createPlantStore({ storage, webhooks: { subscriptions: [{ url: 'http://hooks.test/busy', secret: newSecret() }] } });
    for (let id = 1; id <= 60; id++) await producer.plants.create(acme, { id, name: `P${id}` });
    let claimed = 0;
    let released = 0;
    const counting = withOutbox(storage, {
      claimDue: async (options) => {
        const deliveries = await storage.outbox.claimDue(options);
        claimed += deliveries.length;
        return deliveries;
      },
      release: (ids, owner) => {
        released += ids.length;
        return storage.outbox.release(ids, owner);
      },
    });
    const store = storeWith({ transport, perEndpointConcurrency: 4, subscriptions: [{ url: 'http://hooks.test/busy', secret: newSecret() }] }, counting);
    await eventually(async () => (await store.allTenants.webhooks.list({ status: 'delivered', limit: 100 })).length === 60, 'all 60 delivered');
    expect(sent).toHaveLength(60);
    expect(released).toBe(0);
    expect(claimed).toBe(60);
  });

  it('caps requests the endpoint has not answered, not outcomes still being recorded', async () => {
    let inFlight = 0;
    let mostInFlight = 0;
    const { transport, sent } = fakeTransport(async () => {
      mostInFlight = Math.max(mostInFlight, ++inFlight);
      await new Promise((resolve) => setTimeout(resolve, 2));
      inFlight--;
      return answered(200);
    });
    const storage = memoryStorage();
    let openGate!: () => void;
    const gate = new Promise<void>((resolve) => (openGate = resolve));
    const slowRecords = withOutbox(storage, {
      recordAttempt: async (...args) => {
        await gate;
        return storage.outbox.recordAttempt(...args);
      },
    });
    const store = storeWith({ transport, perEndpointConcurrency: 1, subscriptions: [{ url: 'http://hooks.test/a', secret: newSecret() }] }, slowRecords);
    for (let id = 1; id <= 3; id++) await store.plants.create(acme, { id, name: `P${id}` });
    // No outcome is recorded yet, and still every request went out, one at a time.
    await eventually(() => sent.length === 3, 'all three sent while none is recorded');
    expect(mostInFlight).toBe(1);
    openGate();
    await eventually(async () => (await store.allTenants.webhooks.list({ status: 'delivered' })).length === 3, 'all recorded');
  });

  it('still fails deliveries to endpoints without a subscription while every subscribed one is at its cap', async () => {
    const storage = memoryStorage();
    // Queued by an earlier configuration, due only once the subscribed endpoint is at its cap.
    const producer = createPlantStore({
      storage,
      clock: { now: () => Date.now() + 150 },
      webhooks: { subscriptions: [{ url: 'http://hooks.test/old', secret: newSecret() }] },
    });
    await producer.plants.create(acme, { id: 1, name: 'Fern' });
    const { transport, sent } = fakeTransport(hang);
    const store = storeWith(
      {
        transport,
        perEndpointConcurrency: 1,
        pollIntervalMs: 20,
        stopTimeoutMs: 10,
        subscriptions: [{ url: 'http://hooks.test/hangs', secret: newSecret() }],
      },
      storage,
    );
    await store.plants.create(acme, { id: 2, name: 'Moss' });
    await store.plants.create(acme, { id: 3, name: 'Ivy' });
    await eventually(() => sent.length === 1, 'the subscribed endpoint at its cap');
    expect(await store.allTenants.webhooks.list({ status: 'failed' })).toEqual([]);
    await eventually(async () => (await store.allTenants.webhooks.list({ status: 'failed' })).length === 1, 'the old delivery failed');
    expect((await store.allTenants.webhooks.list({ status: 'failed' }))[0]!.endpointId).toBe(subscriptionId('http://hooks.test/old'));
    expect(sent).toHaveLength(1);
  });

  it('keeps at most `concurrency` attempts in flight and claims more as they finish', async () => {
    let inFlight = 0;
    let peak = 0;
    const { transport, sent } = fakeTransport(async () => {
      peak = Math.max(peak, ++inFlight);
      await new Promise((resolve) => setTimeout(resolve, 2));
      inFlight--;
      return answered(200);
    });
    const subscriptions = Array.from({ length: 4 }, (_, i) => ({ url: `http://hooks.test/${i}`, secret: newSecret() }));
    const store = storeWith({ transport, subscriptions, concurrency: 5, perEndpointConcurrency: 5 });
    for (let id = 1; id <= 50; id++) await store.plants.create(acme, { id, name: `P${id}` });
    await eventually(async () => (await store.allTenants.webhooks.list({ status: 'delivered', limit: 1000 })).length === 200, 'all deliveries');
    expect(sent).toHaveLength(200);
    expect(peak).toBeLessThanOrEqual(5);
    expect(peak).toBeGreaterThan(1);
  });

  it('never sends the same attempt twice from two dispatchers on one outbox', async () => {
    const storage = memoryStorage();
    const subscription = { url: 'http://hooks.test/a', secret: newSecret() };
    const producer = createPlantStore({ storage, webhooks: { subscriptions: [subscription] } });
    for (let id = 1; id <= 200; id++) await producer.plants.create(acme, { id, name: `P${id}` });
    const { transport, sent } = fakeTransport(async () => {
      await new Promise((resolve) => setImmediate(resolve));
      return answered(200);
    });
    const options = {
      outbox: storage.outbox,
      transport,
      clock: systemClock,
      logger: recordingLogger().logger,
      targets: targetsOf(subscription),
      jitter: 0,
      concurrency: 7,
      perEndpointConcurrency: 7,
    };
    const dispatchers = [new WebhookDispatcher(options), new WebhookDispatcher(options)];
    expect(dispatchers[0]!.owner).not.toBe(dispatchers[1]!.owner);
    for (const dispatcher of dispatchers) dispatcher.start();
    await eventually(async () => (await storage.outbox.list({ status: 'delivered', limit: 1000 }))!.length === 200, 'all deliveries');
    await Promise.all(dispatchers.map((dispatcher) => dispatcher.stop()));
    const ids = sent.map((request) => request.headers['webhook-id']);
    expect(ids).toHaveLength(200);
    expect(new Set(ids).size).toBe(200);
  });

  it('logs a storage outage once when it starts and once when it ends, and carries on', async () => {
    const storage = memoryStorage();
    let failures = 6;
    const outbox = storage.outbox;
    const flaky = withClaimDue(outbox, async (options) => {
      if (failures-- > 0) throw new Error(`disk on fire (${failures} to go)`);
      return outbox.claimDue(options);
    });
    const subscription = { url: 'http://hooks.test/a', secret: newSecret() };
    const producer = createPlantStore({ storage, webhooks: { subscriptions: [subscription] } });
    await producer.plants.create(acme, { id: 1, name: 'Fern' });
    const { logger, lines } = recordingLogger();
    const { transport, sent } = fakeTransport();
    const dispatcher = new WebhookDispatcher({ outbox: flaky, transport, clock: systemClock, logger, targets: targetsOf(subscription), pollIntervalMs: 10 });
    dispatcher.start();
    const storageLines = () => lines.filter((line) => /storage/.test(line.message));
    await eventually(() => failures < 3, 'a few failed passes');
    expect(storageLines()).toEqual([
      {
        level: 'error',
        message: 'webhook dispatcher: storage failed, will retry until it answers (logged again when it does)',
        fields: { error: 'disk on fire (5 to go)' },
      },
    ]);
    await eventually(() => sent.length === 1, 'delivery after storage recovered');
    await dispatcher.stop();
    expect(storageLines()).toHaveLength(2);
    expect(storageLines()[1]).toEqual({
      level: 'warn',
      message: 'webhook dispatcher: storage answers again after failing',
      fields: { downMs: expect.any(Number), failedPasses: 6, lastError: 'disk on fire (0 to go)' },
    });
    expect(storageLines()[1]!.fields!['downMs']).toBeGreaterThanOrEqual(0);
    expect(JSON.stringify(lines)).not.toContain(subscription.secret);
  });

  it("logs a record that storage refused with the storage's own reason, not only the action that failed", async () => {
    const storage = memoryStorage();
    const refused = withOutbox(storage, {
      recordAttempt: async () => {
        throw new StorageError('postgres storage could not record the delivery attempts', {
          cause: new Error('invalid byte sequence for encoding "UTF8": 0x00'),
        });
      },
    });
    const { logger, lines } = recordingLogger();
    const { transport, sent } = fakeTransport();
    const subscription = { url: 'http://hooks.test/a', secret: newSecret() };
    const store = storeWith({ transport, subscriptions: [subscription] }, refused, logger);
    await store.plants.create(acme, { id: 1, name: 'Fern' });
    await eventually(() => sent.length === 1 && lines.some((line) => /could not record/.test(line.message)), 'the record to fail');
    expect(lines.find((line) => /could not record/.test(line.message))?.fields).toMatchObject({
      error: 'postgres storage could not record the delivery attempts: invalid byte sequence for encoding "UTF8": 0x00',
    });
  });

  it('counts a transport that throws as a failed attempt', async () => {
    const transport: WebhookTransport = {
      send: async () => {
        throw new Error('boom');
      },
    };
    const store = storeWith({ transport, retrySchedule: [], subscriptions: [{ url: 'http://hooks.test/a', secret: newSecret() }] });
    await store.plants.create(acme, { id: 1, name: 'Fern' });
    await eventually(async () => (await store.allTenants.webhooks.list())[0]?.status === 'failed', 'failed status');
    expect((await store.allTenants.webhooks.list())[0]!.attempts[0]!.error).toBe('transport failed: boom');
  });

  it('stop() waits for in-flight attempts, sends nothing afterwards, and is idempotent', async () => {
    let finish!: () => void;
    const gate = new Promise<void>((resolve) => (finish = resolve));
    const { transport, sent } = fakeTransport(async () => {
      await gate;
      return answered(200);
    });
    const storage = memoryStorage();
    const store = storeWith({ transport, subscriptions: [{ url: 'http://hooks.test/a', secret: newSecret() }] }, storage);
    await store.plants.create(acme, { id: 1, name: 'Fern' });
    await eventually(() => sent.length === 1, 'first attempt');
    let closed = false;
    const closing = store.close().then(() => (closed = true));
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(closed).toBe(false); // still waiting for the attempt in flight
    finish();
    await closing;
    expect(sent).toHaveLength(1);
    await store.close();
  });

  it('stop() interrupts attempts still running after its grace: logged as interrupted, due at once, no retry used up', async () => {
    const storage = memoryStorage();
    const subscription = { url: 'http://hooks.test/a', secret: newSecret() };
    const producer = createPlantStore({ storage, webhooks: { subscriptions: [subscription] } });
    await producer.plants.create(acme, { id: 1, name: 'Fern' });
    // No retries at all: an interrupted attempt that counted would fail the delivery.
    const base = {
      outbox: storage.outbox,
      clock: systemClock,
      logger: recordingLogger().logger,
      targets: targetsOf(subscription),
      jitter: 0,
      retrySchedule: [],
    };
    const hanging = fakeTransport(hang);
    const first = new WebhookDispatcher({ ...base, transport: hanging.transport, leaseMs: 600_000, stopTimeoutMs: 10 });
    first.start();
    await eventually(() => hanging.sent.length === 1, 'hanging attempt');
    await first.stop();
    const [interrupted] = (await storage.outbox.list())!;
    expect(interrupted).toMatchObject({ status: 'pending', attemptCount: 1, nextAttemptAt: interrupted!.createdAt });
    expect(interrupted!.attempts).toEqual([
      { at: expect.any(Number), durationMs: expect.any(Number), error: 'interrupted: the dispatcher stopped', interrupted: true },
    ]);
    // The lease is gone: another dispatcher sends it at once, not after the 10-minute lease.
    const healthy = fakeTransport();
    const second = new WebhookDispatcher({ ...base, transport: healthy.transport, pollIntervalMs: 60_000 });
    second.start();
    await eventually(async () => (await storage.outbox.get(interrupted!.id))?.status === 'delivered', 'delivery by the next dispatcher');
    await second.stop();
    expect(healthy.sent[0]!.headers['webhook-id']).toBe(interrupted!.id);
    expect((await storage.outbox.get(interrupted!.id))!.attempts.map((attempt) => attempt.interrupted ?? false)).toEqual([true, false]);
  });

  it('releases the leases of attempts whose transport ignores the abort, so the next dispatcher takes over at once', async () => {
    const storage = memoryStorage();
    const subscription = { url: 'http://hooks.test/a', secret: newSecret() };
    const producer = createPlantStore({ storage, webhooks: { subscriptions: [subscription] } });
    await producer.plants.create(acme, { id: 1, name: 'Fern' });
    const { logger, lines } = recordingLogger();
    const stuck = fakeTransport(ignoreAbort);
    const base = { outbox: storage.outbox, clock: systemClock, logger, targets: targetsOf(subscription), jitter: 0 };
    const first = new WebhookDispatcher({ ...base, transport: stuck.transport, leaseMs: 600_000, stopTimeoutMs: 10 });
    first.start();
    await eventually(() => stuck.sent.length === 1, 'stuck attempt');
    await first.stop();
    expect(lines.some((line) => line.level === 'warn' && /ignored the abort/.test(line.message))).toBe(true);
    const healthy = fakeTransport();
    const second = new WebhookDispatcher({ ...base, transport: healthy.transport, pollIntervalMs: 60_000 });
    second.start();
    await eventually(() => healthy.sent.length === 1, 'takeover without waiting for the lease');
    await second.stop();
    expect(healthy.sent[0]!.headers['webhook-id']).toBe(stuck.sent[0]!.headers['webhook-id']);
  });

  it('finds queued deliveries by subscription id, so a subscription keeps its queue when its url changes', async () => {
    const storage = memoryStorage();
    const producer = createPlantStore({ storage, webhooks: { subscriptions: [{ id: 'orders', url: 'http://old.test/hook', secret: newSecret() }] } });
    await producer.plants.create(acme, { id: 1, name: 'Fern' });
    expect((await storage.outbox.list())![0]!.endpointId).toBe('orders');
    const secret = newSecret();
    const { transport, sent } = fakeTransport();
    storeWith({ transport, subscriptions: [{ id: 'orders', url: 'http://new.test/hook', secret }] }, storage);
    await eventually(() => sent.length === 1, 'delivery to the new url');
    expect(sent[0]!.url).toBe('http://new.test/hook');
    expect(() => new Webhook(secret).verify(sent[0]!.body, sent[0]!.headers)).not.toThrow();
  });

  it('signs with every key of the target (a secret rotation), each signature verifiable', async () => {
    const current = newSecret();
    const previous = newSecret();
    const keyOf = (secret: string) => Buffer.from(secret.slice('whsec_'.length), 'base64');
    const storage = memoryStorage();
    const producer = createPlantStore({ storage, webhooks: { subscriptions: [{ id: 'sub_1', url: 'http://hooks.test/a', secret: current }] } });
    await producer.plants.create(acme, { id: 1, name: 'Fern' });
    const { transport, sent } = fakeTransport();
    const targets = { resolve: () => ({ url: 'http://hooks.test/a', keys: [keyOf(current), keyOf(previous)] }) };
    const dispatcher = new WebhookDispatcher({ outbox: storage.outbox, transport, clock: systemClock, logger: recordingLogger().logger, targets });
    dispatcher.start();
    await eventually(() => sent.length === 1, 'the attempt');
    await dispatcher.stop();
    const [request] = sent;
    expect(request!.headers['webhook-signature']).toMatch(/^v1,\S+ v1,\S+$/);
    for (const secret of [current, previous]) expect(() => new Webhook(secret).verify(request!.body, request!.headers)).not.toThrow();
  });
});
