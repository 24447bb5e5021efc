import { afterEach, describe, expect, it } from 'vitest';
import { api } from '../support/api-client.js';
import { postgresAvailable } from '../support/postgres.js';
import type { AnyStorageKind } from '../support/storage-kind.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { TOKENS } from '../support/test-tokens.js';
import { startReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

// A disabled endpoint keeps what it subscribes to (parked); enabling it replays that, in order per plant, or discards it.
// Through the real service, its HTTP API and a real receiver, on every storage.

const KINDS: AnyStorageKind[] = postgresAvailable ? ['memory', 'sqlite', 'postgres'] : ['memory', 'sqlite'];
const PLANTS = 500;

describe.each(KINDS)('parked messages through the service (%s storage)', (kind) => {
  let server: TestServer | undefined;
  let receiver: WebhookReceiver | undefined;
  afterEach(async () => {
    await server?.close();
    await receiver?.close();
  });

  const call = (method: string, path: string, body?: unknown) =>
    api(server!.url, method, path, { token: TOKENS.owner, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });

  async function start(parkedLimit?: number): Promise<string> {
    receiver = await startReceiver();
    server = await startTestServer(kind, { deliver: true, allowPrivateDestinations: true, ...(parkedLimit === undefined ? {} : { parkedLimit }) });
    const created = await call('POST', '/webhooks/endpoints', {
      url: receiver.url('/hook'),
      eventTypes: ['plant.created', 'plant.deleted'],
      ordering: 'plant',
    });
    expect(created.status).toBe(201);
    const id = (created.json as { id: string }).id;
    expect((await call('PATCH', `/webhooks/endpoints/${id}`, { status: 'disabled' })).status).toBe(200);
    return id;
  }

  /** Creates plants `from`…`to` and, when asked, deletes each again: two events per plant, in that order. */
  async function write(from: number, to: number, deleteToo: boolean): Promise<void> {
    const ids = Array.from({ length: to - from + 1 }, (_, index) => from + index);
    // A few writers at once, each plant's own events in order.
    const writers = Array.from({ length: 8 }, async (_, writer) => {
      for (const id of ids.filter((_, index) => index % 8 === writer)) {
        expect((await call('POST', '/plants', { id, name: `plant ${id}` })).status).toBe(200);
        if (deleteToo) expect((await call('DELETE', `/plants/${id}`)).status).toBe(204);
      }
    });
    await Promise.all(writers);
  }

  /** `<event type> <plant id>` of every request the receiver got, in arrival order. */
  const arrivals = () => receiver!.received.map((request) => `${request.headers['plant-store-event']} ${JSON.parse(request.body).id}`);

  it('replays exactly what was written while it was disabled, once each, each plant in order', async () => {
    const id = await start();
    await write(1, PLANTS, true);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(receiver!.received).toEqual([]);
    const parked = await call('GET', `/webhooks/deliveries?endpoint=${id}&status=parked&limit=1000`);
    expect((parked.json as { deliveries: unknown[] }).deliveries).toHaveLength(2 * PLANTS);

    expect((await call('PATCH', `/webhooks/endpoints/${id}`, { status: 'enabled' })).json).toMatchObject({ status: 'enabled' });
    await receiver!.waitForMessages(2 * PLANTS, { timeoutMs: 60_000 });
    expect(receiver!.duplicates()).toBe(0);
    const seen = arrivals();
    expect(seen).toHaveLength(2 * PLANTS);
    for (let plant = 1; plant <= PLANTS; plant++) {
      const created = seen.indexOf(`plant.created ${plant}`);
      expect(created, `plant ${plant} created`).toBeGreaterThanOrEqual(0);
      expect(seen.indexOf(`plant.deleted ${plant}`), `plant ${plant} deleted after it was created`).toBeGreaterThan(created);
    }
  });

  it('discards what was kept when told, sending nothing of it; what comes after is sent', async () => {
    const id = await start();
    await write(1, 50, false);
    const enabled = await call('PATCH', `/webhooks/endpoints/${id}`, { status: 'enabled', parked: 'discard' });
    expect(enabled.status).toBe(200);
    await write(51, 51, false);
    await receiver!.waitForMessages(1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(arrivals()).toEqual(['plant.created 51']);
    const failed = await call('GET', `/webhooks/deliveries?endpoint=${id}&status=failed&limit=100`);
    const discarded = (failed.json as { deliveries: { attempts: { error?: string }[] }[] }).deliveries;
    expect(discarded).toHaveLength(50);
    expect(discarded.every((delivery) => delivery.attempts.at(-1)?.error === 'parked message discarded')).toBe(true);
  });

  it('keeps at most the bound, dropping the oldest and counting them on the endpoint', async () => {
    const id = await start(20);
    await write(1, 50, false);
    const endpoint = await call('GET', `/webhooks/endpoints/${id}`);
    expect(endpoint.json).toMatchObject({ status: 'disabled', parkedDropped: 30 });
    await call('PATCH', `/webhooks/endpoints/${id}`, { status: 'enabled' });
    await receiver!.waitForMessages(20);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(arrivals().sort()).toEqual(Array.from({ length: 20 }, (_, index) => `plant.created ${31 + index}`).sort());
  });
});
