import { afterEach, describe, expect, it } from 'vitest';
import {
  ConflictError,
  ForbiddenError,
  NotFoundError,
  ValidationError,
  WEBHOOK_EVENT_CATALOGUE,
  createPlantStore,
  type PlantStore,
} from '@plant-store/core';
import type { Clock } from '@plant-store/core/adapter';
import { memoryStorage } from '@plant-store/storage-memory';
import { acme, globex, only } from '../support/principals.js';

// The library side of the portal's operations (store.webhooks.endpoints.*):
// scope first, then input, tenant isolation, and what each returns. Every
// storage runs them over HTTP in test/http/portal-*.test.ts.


describe('portal operations in the library', () => {
  const now = 1_800_000_000_000;
  const clock: Clock = { now: () => now };
  const stores: PlantStore[] = [];
  const open = () => {
    const store = createPlantStore({ storage: memoryStorage(), clock });
    stores.push(store);
    return store;
  };
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((store) => store.close()));
  });
  const endpointOf = async (store: PlantStore) =>
    (await store.webhooks.endpoints.create(acme, { url: 'https://example.com/hook', eventTypes: ['plant.created'] })).endpoint.id;

  it('eventTypes: the catalogue, for webhooks:read', () => {
    const store = open();
    expect(store.webhooks.endpoints.eventTypes(only('webhooks:read'))).toBe(WEBHOOK_EVENT_CATALOGUE);
    expect(() => store.webhooks.endpoints.eventTypes(only('plants:read', 'plants:write'))).toThrow(ForbiddenError);
    for (const entry of WEBHOOK_EVENT_CATALOGUE) expect(() => JSON.parse(entry.example)).not.toThrow();
  });

  it('sendTest: write scope first, then input, then the endpoint; queues the example marked test', async () => {
    const store = open();
    const id = await endpointOf(store);
    await expect(store.webhooks.endpoints.sendTest(only('webhooks:read'), id, { eventType: 'nope' })).rejects.toBeInstanceOf(ForbiddenError);
    await expect(store.webhooks.endpoints.sendTest(acme, id, { eventType: 'nope' })).rejects.toMatchObject({ field: 'eventType' });
    await expect(store.webhooks.endpoints.sendTest(acme, id, 'plant.created')).rejects.toBeInstanceOf(ValidationError);
    await expect(store.webhooks.endpoints.sendTest(globex, id, { eventType: 'plant.created' })).rejects.toBeInstanceOf(NotFoundError);
    const delivery = await store.webhooks.endpoints.sendTest(acme, id, { eventType: 'plant.deleted' });
    expect(delivery).toEqual({
      id: expect.stringMatching(/^msg_/),
      tenant: 'acme',
      endpointId: id,
      eventType: 'plant.deleted',
      payload: WEBHOOK_EVENT_CATALOGUE[1]!.example,
      createdAt: now,
      test: true,
      status: 'pending',
      attemptCount: 0,
      nextAttemptAt: now,
      attempts: [],
    });
    expect((await store.webhooks.deliveries.list(acme, { eventType: 'plant.deleted' })).deliveries).toEqual([delivery]);
    await store.webhooks.endpoints.update(acme, id, { status: 'disabled' });
    await expect(store.webhooks.endpoints.sendTest(acme, id, { eventType: 'plant.created' })).rejects.toBeInstanceOf(ConflictError);
  });

  it('stats: read scope, tenant-scoped, windows named 1h/24h/7d with a null rate when empty', async () => {
    const store = open();
    const id = await endpointOf(store);
    const none = { succeeded: 0, failed: 0, successRate: null };
    expect(await store.webhooks.endpoints.stats(only('webhooks:read'), id)).toEqual({ endpointId: id, windows: { '1h': none, '24h': none, '7d': none } });
    await expect(store.webhooks.endpoints.stats(only('plants:read'), id)).rejects.toBeInstanceOf(ForbiddenError);
    await expect(store.webhooks.endpoints.stats(globex, id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(store.webhooks.endpoints.stats(acme, 'not-an-id')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('deliveries list: eventType, since and until are validated and name themselves', async () => {
    const store = open();
    const list = (query: unknown) => store.webhooks.deliveries.list(acme, query);
    await expect(list({ eventType: 'plant.moved' })).rejects.toMatchObject({ field: 'eventType' });
    await expect(list({ since: '2026-01-01' })).rejects.toMatchObject({ field: 'since' });
    await expect(list({ until: 5 })).rejects.toMatchObject({ field: 'until' });
    expect((await list({ since: '2026-01-01T00:00:00Z', until: '2026-01-02T00:00:00+02:00' })).deliveries).toEqual([]);
  });
});
