import { afterEach, describe, expect, it } from 'vitest';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError, WEBHOOK_EVENT_CATALOGUE, createPlantStore, type PlantStore } from '@plant-store/core';
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
    const hourly = Array.from({ length: 24 }, (_, index) => ({ start: now - (23 - index) * 3_600_000, succeeded: 0, failed: 0 }));
    expect(await store.webhooks.endpoints.stats(only('webhooks:read'), id)).toEqual({
      endpointId: id,
      windows: { '1h': none, '24h': none, '7d': none },
      hourly,
    });
    await expect(store.webhooks.endpoints.stats(only('plants:read'), id)).rejects.toBeInstanceOf(ForbiddenError);
    await expect(store.webhooks.endpoints.stats(globex, id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(store.webhooks.endpoints.stats(acme, 'not-an-id')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('stats: 24 clock hours, oldest first, the last one the current hour so far', async () => {
    const H = 3_600_000;
    const storage = memoryStorage();
    // Half past the hour that starts at `now`.
    const store = createPlantStore({ storage, clock: { now: () => now + H / 2 } });
    stores.push(store);
    const id = await endpointOf(store);
    await storage.outbox.enqueue({ id: 'msg_hours', tenant: 'acme', endpointId: id, eventType: 'plant.created', payload: '{}', createdAt: now - 30 * H });
    const attempt = async (at: number, statusCode: number) => {
      const [claimed] = await storage.outbox.claimDue({ owner: 'o', now: at, leaseMs: 1_000, limit: 1 });
      expect(await storage.outbox.recordAttempt(claimed!.id, 'o', { at, durationMs: 1, statusCode }, { status: 'pending', nextAttemptAt: at })).toBe(true);
    };
    await attempt(now - 25 * H, 500); // before the first hour
    await attempt(now - 23 * H, 500); // the first hour, at its start
    await attempt(now - 23 * H + 10, 204);
    await attempt(now - 2 * H + 5, 500);
    await attempt(now - 1, 204); // the end of the hour before this one
    await attempt(now + 60_000, 204); // this hour
    const { hourly, windows } = await store.webhooks.endpoints.stats(acme, id);
    expect(hourly).toHaveLength(24);
    expect(hourly[0]).toEqual({ start: now - 23 * H, succeeded: 1, failed: 1 });
    expect(hourly[21]).toEqual({ start: now - 2 * H, succeeded: 0, failed: 1 });
    expect(hourly[22]).toEqual({ start: now - H, succeeded: 1, failed: 0 });
    expect(hourly[23]).toEqual({ start: now, succeeded: 1, failed: 0 });
    const total = hourly.reduce((sum, hour) => ({ succeeded: sum.succeeded + hour.succeeded, failed: sum.failed + hour.failed }), { succeeded: 0, failed: 0 });
    expect(total).toEqual({ succeeded: windows['24h'].succeeded, failed: windows['24h'].failed });
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
