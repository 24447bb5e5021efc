import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { verifyWebhook } from '@plant-store/client';
import type { Storage } from '@plant-store/core/adapter';
import { postgresStorage } from '@plant-store/storage-postgres';
import { postgresAvailable, TEST_DATABASE_URL, testSchemas } from '../support/postgres.js';
import { TOKENS } from '../support/test-tokens.js';
import { startReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import { openStorage, startService, type TestService } from '../support/webhook-test-service.js';

// The operational events through the real service and the real HTTP
// transport: a tenant endpoint that fails until it is disabled, another one
// that hears about it, and an operator subscription that hears it for every
// tenant.

const schemas = testSchemas();
afterAll(() => schemas.dropAll());

let service: TestService | undefined;
let receiver: WebhookReceiver | undefined;
afterEach(async () => {
  await service?.close();
  await receiver?.close();
  service = receiver = undefined;
});

async function endpoint(base: string, body: object): Promise<{ id: string; secret: string }> {
  const response = await fetch(`${base}/webhooks/endpoints`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKENS.owner}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(201);
  return (await response.json()) as { id: string; secret: string };
}

const storages: [string, () => Promise<Storage>][] = [['SQLite', () => openStorage('sqlite')]];
if (postgresAvailable) storages.push(['PostgreSQL', () => postgresStorage({ connectionString: TEST_DATABASE_URL, schema: schemas.next() })]);

describe.each(storages)('operational events on %s', (_, open) => {
  it('reports a failed delivery and the automatic disable to the other endpoint and to the operator, never to the failing one', async () => {
    receiver = await startReceiver();
    receiver.reply((request) => (request.path === '/bad' ? { status: 500 } : { status: 204 }));
    const operator = { url: receiver.url('/operator'), secret: receiver.secret, eventTypes: ['webhook.endpoint.disabled', 'webhook.delivery.failed'] as const };
    // Disabled as soon as a message is out of retries (every attempt failed for at least 1 ms by then).
    service = await startService(await open(), {
      allowPrivateDestinations: true,
      subscriptions: [{ ...operator, eventTypes: [...operator.eventTypes] }],
      disableAfterMs: 1,
    });
    const operational = ['webhook.endpoint.disabled', 'webhook.delivery.failed'];
    const bad = await endpoint(service.base, { url: receiver.url('/bad'), eventTypes: ['plant.created', ...operational] });
    const watcher = await endpoint(service.base, { url: receiver.url('/watch'), eventTypes: operational });
    // Its filter lets only the disable through.
    await endpoint(service.base, {
      url: receiver.url('/picky'),
      eventTypes: operational,
      filter: { type: 'webhook.endpoint.disabled', 'data.endpointId': bad.id },
    });
    expect(await service.create('{"id":1,"name":"Fern"}')).toBe(200);

    await receiver.waitFor(2, { path: '/watch' });
    await receiver.waitFor(2, { path: '/operator' });
    await receiver.waitFor(1, { path: '/picky' });
    const bodyOf = (path: string, type: string) => {
      const request = receiver!.at(path).find((r) => r.headers['plant-store-event'] === type)!;
      return { request, body: JSON.parse(request.body) as Record<string, unknown> };
    };
    const failedDelivery = (await service.store.webhooks.deliveries.list({ tenant: 'a', subject: 't', scopes: ['webhooks:read'] }, { endpoint: bad.id }))
      .deliveries[0]!;
    const failed = bodyOf('/watch', 'webhook.delivery.failed');
    expect(failed.body).toEqual({
      deliveryId: failedDelivery.id,
      endpointId: bad.id,
      eventType: 'plant.created',
      attempts: 4,
      lastError: 'receiver answered 500',
      at: new Date(failedDelivery.attempts.at(-1)!.at + failedDelivery.attempts.at(-1)!.durationMs).toISOString(),
    });
    const disabled = bodyOf('/watch', 'webhook.endpoint.disabled');
    expect(disabled.body).toEqual({
      endpointId: bad.id,
      reason: expect.stringMatching(/^every attempt failed for 1ms or more/),
      at: expect.stringMatching(/Z$/),
      enable: expect.stringContaining(`PATCH /webhooks/endpoints/${bad.id} with {"status":"enabled"}`),
    });
    // Signed like any delivery, with the watcher's own secret.
    const verified = await verifyWebhook(disabled.request.body, disabled.request.headers, watcher.secret);
    expect(verified).toMatchObject({ endpointId: bad.id, at: new Date(disabled.body.at as string) });

    expect(bodyOf('/operator', 'webhook.delivery.failed').body).toEqual({ tenant: 'a', ...failed.body });
    expect(bodyOf('/operator', 'webhook.endpoint.disabled').body).toEqual({ tenant: 'a', ...disabled.body });
    // Both events were queued together with the watcher's: the filtered endpoint got the disable alone.
    expect(receiver.at('/picky').map((r) => r.headers['plant-store-event'])).toEqual(['webhook.endpoint.disabled']);
    // The failing endpoint got its plant (four attempts) and nothing about itself.
    expect(receiver.at('/bad').map((r) => r.headers['plant-store-event'])).toEqual(Array(4).fill('plant.created'));
    const state = await fetch(`${service.base}/webhooks/endpoints/${bad.id}`, { headers: { authorization: `Bearer ${TOKENS.owner}` } });
    expect(await state.json()).toMatchObject({ status: 'disabled', disabledReason: disabled.body.reason });
  });
});
