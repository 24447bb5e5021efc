import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { PlantStore } from '@plant-store/core';
import type { Storage } from '@plant-store/core/adapter';
import { createPlantServer } from '@plant-store/http-node';
import { postgresStorage } from '@plant-store/storage-postgres';
import { postgresAvailable, TEST_DATABASE_URL, testSchemas } from '../support/postgres.js';
import { startReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import { eventually } from '../support/eventually.js';
import { openStorage, startService, type TestService } from '../support/webhook-test-service.js';

const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;
const schemas = testSchemas();
afterAll(() => schemas.dropAll());

const receivers: WebhookReceiver[] = [];
const services: TestService[] = [];
const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    server.close();
  }
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
  await Promise.all(services.splice(0).map((service) => service.close()));
});

const kinds: { name: string; open: () => Promise<Storage>; skip?: boolean }[] = [
  { name: 'memory', open: () => openStorage('memory') },
  { name: 'sqlite', open: () => openStorage('sqlite') },
  {
    name: 'postgres',
    open: () => postgresStorage({ connectionString: TEST_DATABASE_URL, schema: schemas.next() }),
    skip: !postgresAvailable,
  },
];

/** A listener with metrics on the store (created before anything is pruned: it counts from its creation); resolves with its base URL. */
async function metricsListener(store: PlantStore): Promise<string> {
  const server = createPlantServer(store, { metrics: true });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** The value of a counter without labels in a Prometheus text exposition. */
async function counter(base: string, name: string): Promise<number | undefined> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const line = text.split('\n').find((entry) => entry.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.slice(name.length + 1));
}

describe.each(kinds)('webhook retention ($name storage)', ({ open, skip }) => {
  it.skipIf(skip)('prunes delivered deliveries in the background once older than the retention, never pending ones, and counts them', async () => {
    const hooks = await startReceiver();
    receivers.push(hooks);
    // /down fails every attempt and retries only after a minute: its deliveries stay pending.
    hooks.reply((request) => ({ status: request.path === '/down' ? 500 : 204 }));
    const api = await startService(await open(), {
      subscriptions: [
        { url: hooks.url('/ok'), secret: newSecret() },
        { url: hooks.url('/down'), secret: newSecret() },
      ],
      retrySchedule: [60_000],
      retentionMs: 1_000,
      pruneIntervalMs: 100,
    });
    services.push(api);
    const metrics = await metricsListener(api.store);
    for (let i = 1; i <= 3; i++) expect(await api.create(`{"id":${i},"name":"plant ${i}"}`)).toBe(200);
    await hooks.waitFor(3, { path: '/ok' });
    await hooks.waitFor(3, { path: '/down' });
    // Delivered ones are gone once a second old; the pending retries stay.
    // Received is not yet recorded: wait for the three to be pruned (counted), not merely for none to be listed.
    await eventually(async () => (await counter(metrics, 'plant_store_webhook_deliveries_pruned_total')) === 3, 'three deliveries pruned');
    expect(await api.store.allTenants.webhooks.list({ status: 'delivered' })).toEqual([]);
    const left = await api.store.allTenants.webhooks.list();
    expect(left.map((delivery) => delivery.status)).toEqual(['pending', 'pending', 'pending']);
    expect(left.every((delivery) => delivery.attemptCount === 1)).toBe(true);
    expect(await counter(metrics, 'plant_store_webhook_deliveries_pruned_total')).toBe(3);
  });

  it.skipIf(skip)('keeps every finished delivery with retention off', async () => {
    const hooks = await startReceiver();
    receivers.push(hooks);
    const api = await startService(await open(), {
      subscriptions: [{ url: hooks.url('/ok'), secret: newSecret() }],
      retentionMs: null,
      pruneIntervalMs: 10,
    });
    services.push(api);
    const metrics = await metricsListener(api.store);
    expect(await api.create('{"id":1,"name":"kept"}')).toBe(200);
    await eventually(async () => (await api.store.allTenants.webhooks.list())[0]?.status === 'delivered', 'delivered');
    await expect(api.store.allTenants.webhooks.prune()).rejects.toMatchObject({
      name: 'ValidationError',
      message: expect.stringContaining('retention is off'),
    });
    expect(await api.store.allTenants.webhooks.prune({ olderThan: 3_600_000 })).toBe(0);
    expect(await api.store.allTenants.webhooks.list({ status: 'delivered' })).toHaveLength(1);
    // The operator's prune with a cutoff in the past of everything deletes it, and is counted too.
    await eventually(async () => (await api.store.allTenants.webhooks.prune({ olderThan: 0 })) === 1, 'pruned by the operator');
    expect(await api.store.allTenants.webhooks.list()).toEqual([]);
    expect(await counter(metrics, 'plant_store_webhook_deliveries_pruned_total')).toBe(1);
  });
});
