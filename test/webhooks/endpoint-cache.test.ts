import { afterEach, describe, expect, it, vi } from 'vitest';
import { verifyWebhook } from '@plant-store/client';
import { createPlantStore, type PlantStore } from '@plant-store/core';
import type { EndpointAttemptNote, Storage } from '@plant-store/core/adapter';
import { webhookHttpTransport } from '@plant-store/http-node/webhook-transport';
import { postgresStorage } from '@plant-store/storage-postgres';
import { acme } from '../support/principals.js';
import { postgresAvailable, TEST_DATABASE_URL, testSchemas } from '../support/postgres.js';
import type { AnyStorageKind } from '../support/storage-kind.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { startReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

// The dispatcher keeps the tenant endpoints it read for attempts. Kept here
// for an hour, far longer than any test runs, so only forgetting on a change
// can make these pass: a change acknowledged by this store applies to the
// next attempt, and one made through another instance on PostgreSQL as soon
// as its notice arrives.

const AN_HOUR = 3_600_000;
const waitLong = { timeout: 10_000, interval: 20 };

/** The deliveries of plants created from here on, as the receiver gets them. */
async function deliveredPlant(store: PlantStore, receiver: WebhookReceiver, id: number) {
  const before = receiver.received.length;
  await store.plants.create(acme, { id, name: `plant ${id}` });
  return vi.waitFor(() => {
    const request = receiver.received.slice(before).find((arrival) => arrival.body.includes(`"id":${id},`));
    if (!request) throw new Error(`plant ${id} not delivered yet`);
    return request;
  }, waitLong);
}

/** Queues the delivery again and waits for its attempt to end it (`parked` for a disabled endpoint, `failed` for a deleted one); answers its last attempt's error. */
async function resentAndEnded(store: PlantStore, deliveryId: string, status: 'parked' | 'failed'): Promise<string | undefined> {
  await store.allTenants.webhooks.resend(deliveryId);
  return vi.waitFor(async () => {
    const delivery = await store.allTenants.webhooks.get(deliveryId);
    if (delivery.status !== status) throw new Error(`still ${delivery.status}`);
    return delivery.attempts.at(-1)?.error;
  }, waitLong);
}

/**
 * Walks one endpoint through every change a delivery depends on, made through `changer`, while a dispatcher that keeps
 * endpoints an hour sends. `changed(id)` resolves once that dispatcher may have heard of a change.
 */
async function walkThroughChanges(changer: PlantStore, receiver: WebhookReceiver, changed: (id: string) => Promise<void>) {
  const { endpoint, secret } = await changer.webhooks.endpoints.create(acme, { url: receiver.url('/one'), eventTypes: ['plant.created'] });
  // The first attempt reads the endpoint, and the sender keeps it.
  expect((await deliveredPlant(changer, receiver, 1)).path).toBe('/one');

  await changer.webhooks.endpoints.update(acme, endpoint.id, { url: receiver.url('/two') });
  await changed(endpoint.id);
  expect((await deliveredPlant(changer, receiver, 2)).path).toBe('/two');
  expect(receiver.at('/one')).toHaveLength(1);

  const rotated = await changer.webhooks.endpoints.rotateSecret(acme, endpoint.id);
  await changed(endpoint.id);
  const signed = await deliveredPlant(changer, receiver, 3);
  // Signed with the new secret (and the old one, while the overlap lasts).
  expect(await verifyWebhook(signed.body, signed.headers, rotated)).toMatchObject({ id: 3n });
  expect(await verifyWebhook(signed.body, signed.headers, secret)).toMatchObject({ id: 3n });
  const deliveryId = signed.headers['webhook-id']!;

  const received = receiver.received.length;
  await changer.webhooks.endpoints.update(acme, endpoint.id, { status: 'disabled' });
  await changed(endpoint.id);
  expect(await resentAndEnded(changer, deliveryId, 'parked')).toBe('endpoint disabled');

  await changer.webhooks.endpoints.delete(acme, endpoint.id);
  await changed(endpoint.id);
  expect(await resentAndEnded(changer, deliveryId, 'failed')).toBe('endpoint deleted');
  expect(receiver.received).toHaveLength(received);
}

const KINDS: AnyStorageKind[] = postgresAvailable ? ['memory', 'sqlite', 'postgres'] : ['memory', 'sqlite'];

/** The storage, with every attempt note that reaches it recorded in `notes`. */
function notingInto(notes: EndpointAttemptNote[]) {
  return (storage: Storage): Storage => {
    const endpoints = new Proxy(storage.endpoints, {
      get(target, member) {
        if (member === 'noteAttempt') return (id: string, note: EndpointAttemptNote) => (notes.push(note), target.noteAttempt(id, note));
        const value = Reflect.get(target, member, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    return new Proxy(storage, {
      get(target, member) {
        if (member === 'endpoints') return endpoints;
        const value = Reflect.get(target, member, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  };
}

describe.each(KINDS)('the endpoint cache on one instance (%s storage)', (kind) => {
  let server: TestServer | undefined;
  let receiver: WebhookReceiver | undefined;
  afterEach(async () => {
    await server?.close();
    await receiver?.close();
  });

  it('sends the next attempt after a change with what the change left: URL, secrets, disabled, deleted', async () => {
    receiver = await startReceiver();
    server = await startTestServer(kind, { deliver: true, allowPrivateDestinations: true, webhooks: { endpointCacheMs: AN_HOUR } });
    const { store } = server;
    await walkThroughChanges(store, receiver, async () => {});
  });

  it('writes no attempt note while the endpoint it sends to succeeds and has no failing streak', async () => {
    receiver = await startReceiver();
    const notes: EndpointAttemptNote[] = [];
    server = await startTestServer(kind, { deliver: true, allowPrivateDestinations: true, wrapStorage: notingInto(notes) });
    const { store } = server;
    await store.webhooks.endpoints.create(acme, { url: receiver.url('/one'), eventTypes: ['plant.created'] });
    for (let id = 1; id <= 3; id++) await deliveredPlant(store, receiver, id);
    expect(notes).toEqual([]);
  });
});

describe.skipIf(!postgresAvailable)('the endpoint cache across two PostgreSQL instances', () => {
  const schemas = testSchemas();
  const opened: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    for (const closing of opened.splice(0).reverse()) await closing.close();
    await schemas.dropAll();
  });

  it("forgets an endpoint another instance changed once that instance's notice arrives", async () => {
    const receiver = await startReceiver();
    opened.push(receiver);
    const schema = schemas.next();
    const open = async () => postgresStorage({ connectionString: TEST_DATABASE_URL, schema });
    const sending: Storage = await open();
    const sender = createPlantStore({
      storage: sending,
      webhooks: {
        transport: webhookHttpTransport({ userAgent: 'plant-store-test' }),
        allowPrivateDestinations: true,
        endpointCacheMs: AN_HOUR,
        retrySchedule: [20, 40],
        jitter: 0,
        pollIntervalMs: 20,
      },
    });
    opened.push(sender);
    // Without a transport: it only writes, and the sender delivers what it queues.
    const changer = createPlantStore({ storage: await open(), webhooks: { allowPrivateDestinations: true } });
    opened.push(changer);

    // The sender's own subscription was made first: by the time this one hears a notice, the sender's cache has forgotten.
    const heard: (string | undefined)[] = [];
    const unwatch = sending.endpoints.watch!((id) => heard.push(id));
    opened.push({ close: async () => unwatch() });
    // Listening: a change to an endpoint that gets none of these deliveries is heard.
    const probe = await changer.webhooks.endpoints.create(acme, { url: receiver.url('/probe'), eventTypes: ['plant.deleted'] });
    await vi.waitFor(async () => {
      await changer.webhooks.endpoints.update(acme, probe.endpoint.id, { description: 'probe' });
      expect(heard).toContain(probe.endpoint.id);
    }, waitLong);
    let notices = 0;
    await walkThroughChanges(changer, receiver, async (id) => {
      notices++;
      await vi.waitFor(() => expect(heard.filter((heardId) => heardId === id).length).toBeGreaterThanOrEqual(notices), waitLong);
    });
  });

  it('clears with its next success a failing streak another instance started, and writes no success note otherwise', async () => {
    const receiver = await startReceiver();
    opened.push(receiver);
    const schema = schemas.next();
    const open = async () => postgresStorage({ connectionString: TEST_DATABASE_URL, schema });
    const notes: EndpointAttemptNote[] = [];
    const sending = notingInto(notes)(await open());
    const sender = createPlantStore({
      storage: sending,
      webhooks: {
        transport: webhookHttpTransport({ userAgent: 'plant-store-test' }),
        allowPrivateDestinations: true,
        endpointCacheMs: AN_HOUR,
        pollIntervalMs: 20,
      },
    });
    opened.push(sender);
    const other: Storage = await open();
    opened.push(other);
    const heard: (string | undefined)[] = [];
    const unwatch = sending.endpoints.watch!((id) => heard.push(id));
    opened.push({ close: async () => unwatch() });

    const { endpoint } = await sender.webhooks.endpoints.create(acme, { url: receiver.url('/one'), eventTypes: ['plant.created'] });
    // The first attempt reads the endpoint, healthy, and the sender keeps it an hour.
    await deliveredPlant(sender, receiver, 1);
    expect(notes).toEqual([]);
    // The other instance's attempt failed: a streak starts, and its notice reaches the sender.
    expect(await other.endpoints.noteAttempt(endpoint.id, { at: Date.now(), succeeded: false, exhausted: false })).toHaveProperty('failingSince');
    await vi.waitFor(() => expect(heard).toContain(endpoint.id), waitLong);
    await deliveredPlant(sender, receiver, 2);
    await vi.waitFor(async () => expect((await other.endpoints.find(endpoint.id))?.health).toEqual({}), waitLong);
    await deliveredPlant(sender, receiver, 3);
    expect(notes.map((note) => note.succeeded)).toEqual([true]);
  });
});
