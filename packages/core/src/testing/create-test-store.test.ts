import { afterEach, describe, expect, it } from 'vitest';
import { memoryStorage } from '@plant-store/storage-memory';
import { staticTokens } from '../auth/static-tokens.js';
import type { Principal } from '../domain/principal.js';
import { newEndpointSecret } from '../webhooks/endpoints/webhook-endpoint.js';
import { createTestStore, type TestStore } from './create-test-store.js';
import { MANUAL_CLOCK_START } from './manual-clock.js';

const writer: Principal = { subject: 'tester', tenant: 'acme', scopes: ['plants:read', 'plants:write'] };
const secret = newEndpointSecret();
const url = 'https://hooks.example/plants';

describe('createTestStore', () => {
  let store: TestStore | undefined;
  afterEach(() => store?.close());

  // An hour between fallback polls: within a test only an advance of the clock can make a retry happen.
  const open = (retrySchedule = [60_000, 3_600_000]) =>
    (store = createTestStore({ storage: memoryStorage(), webhooks: { subscriptions: [{ url, secret }], retrySchedule, pollIntervalMs: 3_600_000 } }));

  it('captures each webhook with its exact body, signed by the store at the manual clock time', async () => {
    const { plants, deliveries } = open();
    await plants.create(writer, { id: 9223372036854775807n, name: 'Fern', tag: 'indoor' });
    const [sent] = await deliveries.waitFor(1);
    expect(sent!.url).toBe(url);
    expect(sent!.eventType).toBe('plant.created');
    expect(sent!.json()).toEqual({ id: 9223372036854775807n, name: 'Fern', tag: 'indoor' });
    expect(sent!.body).toContain('9223372036854775807');
    expect(sent!.timestamp).toBe(MANUAL_CLOCK_START / 1000);
    expect(sent!.signedWith(secret)).toBe(true);
    expect(sent!.signedWith(newEndpointSecret())).toBe(false);
  });

  it('runs a retry when the clock is advanced to its due time, not before', async () => {
    const {
      plants,
      deliveries,
      clock,
      allTenants: { webhooks },
    } = open();
    deliveries.reply((_, index) => (index === 0 ? { kind: 'retry', reason: 'receiver down', statusCode: 503 } : { kind: 'delivered', statusCode: 204 }));
    await plants.create(writer, { id: 1n, name: 'Fern' });
    await deliveries.waitFor(1);
    await expect.poll(async () => (await webhooks.list())[0]).toMatchObject({ status: 'pending', attemptCount: 1, nextAttemptAt: MANUAL_CLOCK_START + 60_000 });

    clock.advance(59_999);
    // Not yet due: a whole claim pass finds nothing, and the delivery still waits for its retry.
    expect((await webhooks.list())[0]).toMatchObject({ status: 'pending', attemptCount: 1 });
    expect(deliveries.sent).toHaveLength(1);

    clock.advance(1);
    const [first, second] = await deliveries.waitFor(2);
    expect(second!.messageId).toBe(first!.messageId);
    expect(second!.timestamp).toBe((MANUAL_CLOCK_START + 60_000) / 1000);
    expect(second!.signedWith(secret)).toBe(true);
    await expect.poll(async () => (await webhooks.list())[0]?.status).toBe('delivered');
  });

  it('is a whole store: authentication, tenant endpoints and their signatures', async () => {
    store = createTestStore({ storage: memoryStorage(), authenticator: staticTokens([{ token: 't-acme', tenant: 'acme' }]) });
    const principal = await store.authenticate('t-acme');
    const { secret: endpointSecret } = await store.webhooks.endpoints.create(principal, { url: 'https://tenant.example/hook', eventTypes: ['plant.created'] });
    await store.plants.create(principal, { id: 7n, name: 'Ivy' });
    const [sent] = await store.deliveries.waitFor(1);
    expect(sent!.url).toBe('https://tenant.example/hook');
    expect(sent!.signedWith(endpointSecret)).toBe(true);
  });

  it('says how many requests arrived when waiting runs out', async () => {
    const { deliveries } = open();
    await expect(deliveries.waitFor(1, { timeoutMs: 20 })).rejects.toThrow('0 of 1 webhook requests were sent (and their outcomes recorded) within 20 ms');
  });
});
