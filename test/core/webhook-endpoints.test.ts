import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import {
  createPlantStore,
  ForbiddenError,
  NotFoundError,
  ValidationError,
  type PlantStore,
  type PlantStoreWebhookOptions,
  type Scope,
} from '@plant-store/core';
import type { Clock, Logger, LogFields, WebhookRequest, WebhookSendOutcome } from '@plant-store/core/adapter';
import { memoryStorage } from '@plant-store/storage-memory';
import { acme, globex, only } from '../support/principals.js';
import { eventually } from '../support/eventually.js';

const URL_OK = 'https://hooks.example.com/plants';
const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

const settle = () => new Promise((resolve) => setTimeout(resolve, 60));

/** A clock near real time (receivers check timestamps) that tests move forward. */
function movableClock() {
  let offset = 0;
  const clock: Clock = { now: () => Date.now() + offset };
  return { clock, advance: (ms: number) => void (offset += ms) };
}

function fakeTransport(respond: (request: WebhookRequest) => WebhookSendOutcome = () => ({ kind: 'delivered', statusCode: 204 })) {
  const sent: WebhookRequest[] = [];
  return { sent, transport: { send: async (request: WebhookRequest) => (sent.push(request), respond(request)) } };
}

function recordingLogger() {
  const lines: { level: string; message: string; fields?: LogFields }[] = [];
  const at = (level: string) => (message: string, fields?: LogFields) => void lines.push({ level, message, fields });
  const logger: Logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
  return { logger, lines };
}

const stores: PlantStore[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
});
function store(webhooks: PlantStoreWebhookOptions = {}, extra: { clock?: Clock; logger?: Logger } = {}): PlantStore {
  const created = createPlantStore({ storage: memoryStorage(), webhooks: { pollIntervalMs: 20, jitter: 0, ...webhooks }, ...extra });
  stores.push(created);
  return created;
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('store.webhooks.endpoints: scopes, validation, tenant isolation', () => {
  it('creates with defaults (plant.created, a new 32-byte whsec_ secret) and lists in keyset pages', async () => {
    const s = store();
    const { endpoint, secret } = await s.webhooks.endpoints.create(acme, { url: URL_OK });
    expect(endpoint).toMatchObject({ tenant: 'acme', url: URL_OK, eventTypes: ['plant.created'], status: 'enabled' });
    expect(endpoint.id).toMatch(/^ep_[A-Za-z0-9_-]{26,}$/);
    expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
    expect(await s.webhooks.endpoints.getSecret(acme, endpoint.id)).toBe(secret);
    await s.webhooks.endpoints.create(acme, { url: URL_OK, description: 'b' });
    await s.webhooks.endpoints.create(acme, { url: URL_OK, description: 'c' });
    const first = await s.webhooks.endpoints.list(acme, { limit: 2 });
    expect(first.endpoints).toHaveLength(2);
    const second = await s.webhooks.endpoints.list(acme, { limit: 2, after: first.nextAfter });
    expect(second).toEqual({ endpoints: [expect.any(Object)] });
    expect(new Set([...first.endpoints, ...second.endpoints].map((e) => e.id)).size).toBe(3);
    expect((await s.webhooks.endpoints.list(globex)).endpoints).toEqual([]);
  });

  it('checks the scope first, before looking at the input', async () => {
    const s = store();
    const e = s.webhooks.endpoints;
    const d = s.webhooks.deliveries;
    const reader = only('webhooks:read');
    const plantsOnly = only('plants:read', 'plants:write');
    const cases: [Promise<unknown>, Scope][] = [
      [e.create(reader, 'not even an object'), 'webhooks:write'],
      [e.list(plantsOnly, { limit: -1 }), 'webhooks:read'],
      [e.get(plantsOnly, 'ep_x'), 'webhooks:read'],
      [e.update(reader, 'ep_x', 42), 'webhooks:write'],
      [e.delete(reader, 'ep_x'), 'webhooks:write'],
      [e.getSecret(reader, 'ep_x'), 'webhooks:write'],
      [e.rotateSecret(reader, 'ep_x', { secret: 'bad' }), 'webhooks:write'],
      [e.recover(reader, 'ep_x', {}), 'webhooks:write'],
      [d.list(plantsOnly, { status: 'nope' }), 'webhooks:read'],
      [d.get(plantsOnly, 'msg_x'), 'webhooks:read'],
      [d.resend(reader, 'msg_x'), 'webhooks:write'],
    ];
    for (const [call, scope] of cases) {
      const error = await rejection(call);
      expect(error).toBeInstanceOf(ForbiddenError);
      expect((error as ForbiddenError).requiredScope).toBe(scope);
    }
  });

  it('names the field of every invalid input', async () => {
    const s = store();
    const e = s.webhooks.endpoints;
    const { endpoint } = await e.create(acme, { url: URL_OK });
    const cases: [Promise<unknown>, string, string][] = [
      [e.create(acme, {}), 'url', 'url is required'],
      [
        e.create(acme, []),
        '',
        'an endpoint must be a JSON object {url, eventTypes?, description?, secret?, rateLimit?, headers?, ordering?, signature?, filter?}',
      ],
      [e.create(acme, { url: 'ftp://x.example/' }), 'url', 'url must be an absolute http or https URL'],
      [e.create(acme, { url: 'http://127.0.0.1/h' }), 'url', 'url must not point to a private, loopback, link-local or multicast address'],
      [e.create(acme, { url: 'https://u:p@x.example/' }), 'url', 'url must not contain credentials'],
      [
        e.create(acme, { url: URL_OK, eventTypes: [] }),
        'eventTypes',
        'eventTypes must be a non-empty array of plant.created, plant.deleted, webhook.endpoint.disabled, webhook.delivery.failed',
      ],
      [
        e.create(acme, { url: URL_OK, eventTypes: ['plant.updated'] }),
        'eventTypes.0',
        'eventTypes must be a non-empty array of plant.created, plant.deleted, webhook.endpoint.disabled, webhook.delivery.failed',
      ],
      [e.create(acme, { url: URL_OK, eventTypes: ['plant.created', 'plant.created'] }), 'eventTypes', 'eventTypes must not list a type twice'],
      [e.create(acme, { url: URL_OK, description: 'x'.repeat(513) }), 'description', 'description must be a string of at most 512 characters'],
      [e.create(acme, { url: URL_OK, secret: 'whsec_c2hvcnQ=' }), 'secret', 'secret must be "whsec_" followed by base64 of at least 24 random bytes'],
      [e.create(acme, { url: URL_OK, rateLimit: 0 }), 'rateLimit', 'rateLimit must be an integer between 1 and 10000'],
      [e.create(acme, { url: URL_OK, rateLimit: 1.5 }), 'rateLimit', 'rateLimit must be an integer between 1 and 10000'],
      [e.create(acme, { url: URL_OK, colour: 'red' }), 'colour', "unknown property 'colour'"],
      [e.update(acme, endpoint.id, { status: 'paused' }), 'status', 'status must be "enabled" or "disabled"'],
      [e.update(acme, endpoint.id, { secret: newSecret() }), 'secret', "unknown property 'secret'"],
      [e.rotateSecret(acme, endpoint.id, { secret: 'whsec_!!' }), 'secret', 'secret must be "whsec_" followed by base64 of at least 24 random bytes'],
      [e.recover(acme, endpoint.id, { since: 'yesterday' }), 'since', 'since must be an RFC 3339 date-time, e.g. 2025-01-31T12:00:00Z'],
      [e.recover(acme, endpoint.id, {}), 'since', 'since is required'],
      [e.list(acme, { limit: 0 }), 'limit', 'limit must be an integer between 1 and 1000'],
      [e.list(acme, { limit: 1001 }), 'limit', 'limit must be an integer between 1 and 1000'],
      [e.list(acme, { after: 'msg_1' }), 'after', 'after must be an id starting with "ep_"'],
      [s.webhooks.deliveries.list(acme, { status: 'lost' }), 'status', 'status must be "pending", "delivered", "failed" or "parked"'],
      [e.update(acme, endpoint.id, { parked: 'keep', status: 'enabled' }), 'parked', 'parked must be "replay" or "discard"'],
      [e.update(acme, endpoint.id, { parked: 'replay' }), 'parked', 'parked applies when enabling: send it with "status": "enabled"'],
      [e.update(acme, endpoint.id, { parked: 'discard', status: 'disabled' }), 'parked', 'parked applies when enabling: send it with "status": "enabled"'],
      [
        e.update(acme, endpoint.id, { parkedSince: '2026-01-02T03:04:05Z' }),
        'parkedSince',
        'parkedSince applies when enabling: send it with "status": "enabled"',
      ],
      [
        e.update(acme, endpoint.id, { status: 'enabled', parked: 'discard', parkedSince: '2026-01-02T03:04:05Z' }),
        'parkedSince',
        'parkedSince applies to a replay: it cannot go with "parked": "discard"',
      ],
      [
        e.update(acme, endpoint.id, { status: 'enabled', parkedSince: 'yesterday' }),
        'parkedSince',
        'parkedSince must be an RFC 3339 date-time, e.g. 2025-01-31T12:00:00Z',
      ],
      [s.webhooks.deliveries.list(acme, { endpoint: 'sub_1' }), 'endpoint', 'endpoint must be an id starting with "ep_"'],
      [s.webhooks.deliveries.list(acme, { after: 'msg_unknown' }), 'after', 'after must be the id of a delivery from a previous page'],
    ];
    for (const [call, field, message] of cases) {
      const error = await rejection(call);
      expect(error, message).toBeInstanceOf(ValidationError);
      expect({ field: (error as ValidationError).field, message: (error as ValidationError).message }).toEqual({ field, message });
    }
  });

  it('accepts private URLs with allowPrivateDestinations, and applies patches (null removes, enabling clears the reason)', async () => {
    const s = store({ allowPrivateDestinations: true });
    const { endpoint } = await s.webhooks.endpoints.create(acme, { url: 'http://127.0.0.1:9/h', description: 'd', rateLimit: 5 });
    expect(await s.webhooks.endpoints.update(acme, endpoint.id, {})).toEqual(endpoint);
    const disabled = await s.webhooks.endpoints.update(acme, endpoint.id, { status: 'disabled', description: null });
    expect(disabled).toMatchObject({ status: 'disabled', disabledReason: 'disabled by the tenant', rateLimit: 5 });
    expect(disabled).not.toHaveProperty('description');
    const enabled = await s.webhooks.endpoints.update(acme, endpoint.id, { status: 'enabled', rateLimit: null, eventTypes: ['plant.deleted'] });
    expect(enabled).toMatchObject({ status: 'enabled', eventTypes: ['plant.deleted'] });
    expect(enabled).not.toHaveProperty('disabledReason');
    expect(enabled).not.toHaveProperty('rateLimit');
  });

  it('hands the storage the choice for parked messages when enabling: replay by default, since a time, or discard', async () => {
    const storage = memoryStorage();
    const choices: unknown[] = [];
    const update = storage.endpoints.update.bind(storage.endpoints);
    const setStatus = storage.endpoints.setStatus.bind(storage.endpoints);
    // A storage's setStatus may go through its own update: only the outer call counts.
    let inSetStatus = false;
    storage.endpoints.update = (tenant, id, changes) => (inSetStatus || choices.push(changes.parked), update(tenant, id, changes));
    storage.endpoints.setStatus = async (id, status, reason, at, parked) => {
      choices.push(parked);
      inSetStatus = true;
      try {
        return await setStatus(id, status, reason, at, parked);
      } finally {
        inSetStatus = false;
      }
    };
    const s = createPlantStore({ storage, webhooks: { pollIntervalMs: 20, jitter: 0 } });
    stores.push(s);
    const { endpoint } = await s.webhooks.endpoints.create(acme, { url: URL_OK });
    const since = '2026-01-02T03:04:05.250+01:00';
    for (const patch of [
      { status: 'enabled' },
      { status: 'enabled', parked: 'replay' },
      { status: 'enabled', parkedSince: since },
      { status: 'enabled', parked: 'replay', parkedSince: since },
      { status: 'enabled', parked: 'discard' },
    ]) {
      await s.webhooks.endpoints.update(acme, endpoint.id, patch);
    }
    await s.allTenants.webhooks.setEndpointStatus(endpoint.id, 'enabled');
    await s.allTenants.webhooks.setEndpointStatus(endpoint.id, 'enabled', undefined, { action: 'discard' });
    const at = Date.parse(since);
    expect(choices).toEqual([
      undefined,
      { action: 'replay' },
      { action: 'replay', since: at },
      { action: 'replay', since: at },
      { action: 'discard' },
      undefined,
      { action: 'discard' },
    ]);
    const refused = await rejection(s.allTenants.webhooks.setEndpointStatus(endpoint.id, 'enabled', undefined, { action: 'discard', since: at }));
    expect(refused).toBeInstanceOf(ValidationError);
    expect((refused as ValidationError).field).toBe('parked.since');
  });

  it('refuses an operator choice for parked messages that an untyped caller got wrong, before the storage is touched', async () => {
    const s = store();
    const { endpoint } = await s.webhooks.endpoints.create(acme, { url: URL_OK });
    await s.allTenants.webhooks.setEndpointStatus(endpoint.id, 'disabled');
    for (const [choice, field] of [
      [{ action: 'keep' }, 'parked.action'],
      [{ action: 'replay', since: Number.NaN }, 'parked.since'],
    ] as const) {
      const refused = await rejection(s.allTenants.webhooks.setEndpointStatus(endpoint.id, 'enabled', undefined, choice as never));
      expect(refused).toBeInstanceOf(ValidationError);
      expect((refused as ValidationError).field).toBe(field);
    }
    expect(await s.webhooks.endpoints.get(acme, endpoint.id)).toMatchObject({ status: 'disabled' });
  });

  it("answers another tenant's ids exactly like missing ones (NotFoundError), for endpoints and deliveries", async () => {
    const s = store();
    const { endpoint } = await s.webhooks.endpoints.create(acme, { url: URL_OK });
    await s.plants.create(acme, { id: 1, name: 'Fern' });
    const [delivery] = (await s.webhooks.deliveries.list(acme)).deliveries;
    const e = s.webhooks.endpoints;
    const calls = [
      e.get(globex, endpoint.id),
      e.update(globex, endpoint.id, { description: 'mine now' }),
      e.delete(globex, endpoint.id),
      e.getSecret(globex, endpoint.id),
      e.rotateSecret(globex, endpoint.id),
      e.recover(globex, endpoint.id, { since: '2020-01-01T00:00:00Z' }),
      s.webhooks.deliveries.get(globex, delivery!.id),
      s.webhooks.deliveries.resend(globex, delivery!.id),
    ];
    for (const call of calls) expect(await rejection(call)).toBeInstanceOf(NotFoundError);
    expect((await rejection(e.get(acme, 'ep_missing'))) as Error).toMatchObject({ message: 'endpoint ep_missing not found' });
    expect((await rejection(s.webhooks.deliveries.get(acme, 'msg_missing'))) as Error).toMatchObject({ message: 'delivery msg_missing not found' });
    expect(await e.get(acme, endpoint.id)).toEqual(endpoint);
    expect((await s.webhooks.deliveries.list(globex)).deliveries).toEqual([]);
  });

  it("shows tenants only deliveries to their endpoints; operator subscriptions stay the operator's", async () => {
    const s = store({ subscriptions: [{ url: 'https://operator.example/h', secret: newSecret() }] });
    const { endpoint } = await s.webhooks.endpoints.create(acme, { url: URL_OK });
    await s.plants.create(acme, { id: 1, name: 'Fern' });
    const operatorView = await s.allTenants.webhooks.list();
    expect(operatorView).toHaveLength(2);
    expect(operatorView.map((d) => d.endpointId)).toEqual(expect.arrayContaining([endpoint.id, expect.stringMatching(/^sub_/)]));
    const tenantView = (await s.webhooks.deliveries.list(acme)).deliveries;
    expect(tenantView.map((d) => d.endpointId)).toEqual([endpoint.id]);
    const subscriptionDelivery = operatorView.find((d) => d.endpointId.startsWith('sub_'))!;
    expect(await rejection(s.webhooks.deliveries.get(acme, subscriptionDelivery.id))).toBeInstanceOf(NotFoundError);
  });
});

describe('tenant endpoints: what gets delivered', () => {
  it('sends plant.created and plant.deleted by eventTypes, with the event header and restricted destinations', async () => {
    const { sent, transport } = fakeTransport();
    const s = store({ transport, subscriptions: [{ url: 'https://operator.example/h', secret: newSecret() }] });
    const { endpoint: deletions } = await s.webhooks.endpoints.create(acme, { url: 'https://d.example/h', eventTypes: ['plant.deleted'] });
    await s.plants.create(acme, { id: 9223372036854775807n, name: 'Fern' });
    await eventually(() => sent.length === 1, 'the operator subscription delivery');
    expect(sent[0]!.url).toBe('https://operator.example/h');
    expect(sent[0]!.restrictDestination).toBeUndefined();
    expect(sent[0]!.headers['plant-store-event']).toBe('plant.created');
    await s.plants.delete(acme, 9223372036854775807n);
    await eventually(() => sent.length === 2, 'the plant.deleted delivery');
    const deleted = sent[1]!;
    expect(deleted).toMatchObject({ url: 'https://d.example/h', body: '{"id":9223372036854775807}', restrictDestination: true });
    expect(deleted.headers['plant-store-event']).toBe('plant.deleted');
    const [stored] = (await s.webhooks.deliveries.list(acme, { endpoint: deletions.id })).deliveries;
    expect(stored).toMatchObject({ eventType: 'plant.deleted', payload: '{"id":9223372036854775807}', status: 'delivered' });
    await settle();
    expect(sent).toHaveLength(2);
  });

  it('leaves tenant endpoint requests unrestricted when the store allows private destinations (the transport follows the mark)', async () => {
    const { sent, transport } = fakeTransport();
    const s = store({ transport, allowPrivateDestinations: true });
    await s.webhooks.endpoints.create(acme, { url: 'http://127.0.0.1:9/h' });
    await s.plants.create(acme, { id: 1, name: 'Fern' });
    await eventually(() => sent.length === 1, 'the endpoint delivery');
    expect(sent[0]!.url).toBe('http://127.0.0.1:9/h');
    expect(sent[0]!.restrictDestination).toBeUndefined();
  });

  it("hands the transport the plant id as the ordering key of an ordering endpoint's request, and none for the others", async () => {
    const { sent, transport } = fakeTransport();
    const s = store({ transport });
    await s.webhooks.endpoints.create(acme, { url: 'https://ordered.example/h', ordering: 'plant' });
    await s.webhooks.endpoints.create(acme, { url: 'https://unordered.example/h' });
    await s.plants.create(acme, { id: 9223372036854775807n, name: 'Fern' });
    await eventually(() => sent.length === 2, 'both deliveries');
    const byUrl = new Map(sent.map((request) => [request.url, request]));
    expect(byUrl.get('https://ordered.example/h')!.orderingKey).toBe('9223372036854775807');
    expect(byUrl.get('https://unordered.example/h')).not.toHaveProperty('orderingKey');
  });

  it('signs with the new and the previous secret during the overlap, then with the new one only (standardwebhooks verifies)', async () => {
    const { clock, advance } = movableClock();
    const { sent, transport } = fakeTransport();
    const s = store({ transport, secretOverlapMs: 60_000 }, { clock });
    const { endpoint, secret: oldSecret } = await s.webhooks.endpoints.create(acme, { url: URL_OK });
    const newer = newSecret();
    expect(await s.webhooks.endpoints.rotateSecret(acme, endpoint.id, { secret: newer })).toBe(newer);
    expect(await s.webhooks.endpoints.getSecret(acme, endpoint.id)).toBe(newer);
    await s.plants.create(acme, { id: 1, name: 'During' });
    await eventually(() => sent.length === 1, 'the attempt during the overlap');
    const during = sent[0]!;
    expect(during.headers['webhook-signature']).toMatch(/^v1,\S+ v1,\S+$/);
    // Receivers holding only the old secret, or only the new one, both verify.
    for (const secret of [oldSecret, newer]) expect(() => new Webhook(secret).verify(during.body, during.headers)).not.toThrow();

    advance(60_001);
    await s.plants.create(acme, { id: 2, name: 'After' });
    await eventually(() => sent.length === 2, 'the attempt after the overlap');
    const after = sent[1]!;
    expect(after.headers['webhook-signature']).toMatch(/^v1,\S+$/);
    expect(() => new Webhook(newer).verify(after.body, after.headers)).not.toThrow();
    expect(() => new Webhook(oldSecret).verify(after.body, after.headers)).toThrow();
  });

  it("throttles an endpoint to its rateLimit per second of the dispatcher's clock, and drops nothing", async () => {
    const { clock, advance } = movableClock();
    let frozenAt = clock.now();
    const frozen: Clock = { now: () => frozenAt };
    const { sent, transport } = fakeTransport();
    const s = store({ transport }, { clock: frozen });
    const { endpoint } = await s.webhooks.endpoints.create(acme, { url: URL_OK, rateLimit: 2 });
    const { endpoint: free } = await s.webhooks.endpoints.create(acme, { url: 'https://free.example/h' });
    for (let id = 1; id <= 5; id++) await s.plants.create(acme, { id, name: `P${id}` });
    const toLimited = () => sent.filter((request) => request.url === URL_OK).length;
    await eventually(() => sent.length === 7, 'two to the limited endpoint and all five to the free one');
    await settle();
    expect(toLimited()).toBe(2);
    for (const step of [4, 5]) {
      advance(1_000);
      frozenAt = clock.now();
      await eventually(() => toLimited() === step, `${step} to the limited endpoint after the window`);
      await settle();
      expect(toLimited()).toBe(step);
    }
    const statuses = (await s.webhooks.deliveries.list(acme, { endpoint: endpoint.id })).deliveries.map((d) => d.status);
    expect(statuses).toEqual(Array(5).fill('delivered'));
    expect((await s.webhooks.deliveries.list(acme, { endpoint: free.id, status: 'delivered' })).deliveries).toHaveLength(5);
  });

  it('replays what was parked under the rate limit like any delivery: rateLimit per second, nothing dropped', async () => {
    const { clock, advance } = movableClock();
    let frozenAt = clock.now();
    const frozen: Clock = { now: () => frozenAt };
    const { sent, transport } = fakeTransport();
    const s = store({ transport }, { clock: frozen });
    const { endpoint } = await s.webhooks.endpoints.create(acme, { url: URL_OK, rateLimit: 2 });
    await s.webhooks.endpoints.update(acme, endpoint.id, { status: 'disabled' });
    for (let id = 1; id <= 5; id++) await s.plants.create(acme, { id, name: `P${id}` });
    await settle();
    expect(sent).toHaveLength(0);
    await s.webhooks.endpoints.update(acme, endpoint.id, { status: 'enabled' });
    await eventually(() => sent.length === 2, 'the first window of the replay');
    await settle();
    expect(sent).toHaveLength(2);
    for (const step of [4, 5]) {
      advance(1_000);
      frozenAt = clock.now();
      await eventually(() => sent.length === step, `${step} replayed after the window`);
      await settle();
      expect(sent).toHaveLength(step);
    }
    expect(sent.map((request) => JSON.parse(request.body).id).sort()).toEqual([1, 2, 3, 4, 5]);
  });

  it('auto-disables an endpoint whose attempts all failed for disableAfterMs with a message exhausted, parking its pending deliveries', async () => {
    const { clock, advance } = movableClock();
    const { logger, lines } = recordingLogger();
    const { sent, transport } = fakeTransport(() => ({ kind: 'retry', statusCode: 500, reason: 'receiver answered 500' }));
    const s = store({ transport, retrySchedule: [5, 5], disableAfterMs: 3_600_000 }, { clock, logger });
    const { endpoint } = await s.webhooks.endpoints.create(acme, { url: URL_OK });
    await s.plants.create(acme, { id: 1, name: 'Exhausted' });
    await eventually(async () => (await s.webhooks.deliveries.list(acme, { status: 'failed' })).deliveries.length === 1, 'the first message exhausted');
    expect((await s.webhooks.endpoints.get(acme, endpoint.id)).status).toBe('enabled');

    // An hour later, still failing: the next failed attempt disables it.
    advance(3_600_000);
    await s.plants.create(acme, { id: 2, name: 'Pending' });
    await eventually(async () => (await s.webhooks.endpoints.get(acme, endpoint.id)).status === 'disabled', 'the endpoint disabled');
    const disabled = await s.webhooks.endpoints.get(acme, endpoint.id);
    expect(disabled.disabledReason).toMatch(/^every attempt failed for 1h or more \(since /);
    // Waiting for its retry when its failure disabled the endpoint: parked, its attempts kept.
    const second = (await s.webhooks.deliveries.list(acme)).deliveries.find((d) => d.payload.includes('Pending'))!;
    expect(second.status).toBe('parked');
    expect(second.attempts.at(-1)).toMatchObject({ statusCode: 500, error: 'receiver answered 500' });
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        message: 'webhook endpoint disabled: every attempt failed',
        fields: expect.objectContaining({ endpointId: endpoint.id, tenant: 'acme' }),
      }),
    );

    // Disabled: nothing is attempted for it; what it subscribes to is parked.
    const attempts = sent.length;
    await s.plants.create(acme, { id: 3, name: 'Kept' });
    await settle();
    expect(sent).toHaveLength(attempts);
    const parked = (await s.webhooks.deliveries.list(acme)).deliveries.filter((d) => d.status === 'parked');
    expect(parked.map((d) => JSON.parse(d.payload).name)).toEqual(['Kept', 'Pending']);
  });

  it('deleting an endpoint ends its pending deliveries as failed ("endpoint deleted")', async () => {
    const s = store();
    const { endpoint } = await s.webhooks.endpoints.create(acme, { url: URL_OK });
    await s.plants.create(acme, { id: 1, name: 'Fern' });
    const [queued] = (await s.webhooks.deliveries.list(acme)).deliveries;
    expect(queued!.status).toBe('pending');
    await s.webhooks.endpoints.delete(acme, endpoint.id);
    expect(await rejection(s.webhooks.endpoints.get(acme, endpoint.id))).toBeInstanceOf(NotFoundError);
    expect(await s.webhooks.deliveries.get(acme, queued!.id)).toMatchObject({
      status: 'failed',
      attempts: [{ durationMs: 0, error: 'endpoint deleted' }],
    });
    expect(await rejection(s.webhooks.endpoints.delete(acme, endpoint.id))).toBeInstanceOf(NotFoundError);
  });

  it('resends (same webhook-id), parks a resend to a disabled endpoint and replays it on enable, never attempting a disabled endpoint', async () => {
    const { sent, transport } = fakeTransport();
    const s = store({ transport });
    const { endpoint } = await s.webhooks.endpoints.create(acme, { url: URL_OK });
    await s.webhooks.endpoints.update(acme, endpoint.id, { status: 'disabled' });
    await s.webhooks.endpoints.update(acme, endpoint.id, { status: 'enabled' });
    await s.plants.create(acme, { id: 1, name: 'Fern' });
    await eventually(() => sent.length === 1, 'the first delivery');
    const [delivery] = (await s.webhooks.deliveries.list(acme)).deliveries;
    await s.webhooks.deliveries.resend(acme, delivery!.id);
    await eventually(() => sent.length === 2, 'the resend');
    expect(sent[1]!.headers['webhook-id']).toBe(sent[0]!.headers['webhook-id']);

    // Disabled: a resend is not attempted, it is parked for the endpoint.
    await s.allTenants.webhooks.setEndpointStatus(endpoint.id, 'disabled', 'maintenance');
    expect((await s.webhooks.endpoints.get(acme, endpoint.id)).disabledReason).toBe('maintenance');
    await s.allTenants.webhooks.resend(delivery!.id);
    await eventually(async () => (await s.allTenants.webhooks.get(delivery!.id)).status === 'parked', 'the resend to a disabled endpoint parked');
    expect(sent).toHaveLength(2);
    expect((await s.allTenants.webhooks.get(delivery!.id)).attempts.at(-1)).toMatchObject({ error: 'endpoint disabled' });

    // Enabled again: what was parked is replayed, under its webhook-id; nothing failed, so nothing is left to recover.
    await s.allTenants.webhooks.setEndpointStatus(endpoint.id, 'enabled');
    await eventually(() => sent.length === 3, 'the replayed delivery');
    expect(sent[2]!.headers['webhook-id']).toBe(sent[0]!.headers['webhook-id']);
    expect(await s.webhooks.endpoints.recover(acme, endpoint.id, { since: '2000-01-01T00:00:00+01:00' })).toEqual({ requeued: 0 });
    expect((await s.allTenants.webhooks.listEndpoints({ limit: 10 })).endpoints.map((e) => e.id)).toEqual([endpoint.id]);
  });
});

describe('operational events', () => {
  const URL_BAD = 'https://failing.example.com/plants';
  const URL_OPERATOR = 'https://ops.example.com/hooks';
  const failing = () =>
    fakeTransport((request) =>
      request.url.startsWith(URL_BAD) ? { kind: 'retry', statusCode: 500, reason: 'receiver answered 500' } : { kind: 'delivered', statusCode: 204 },
    );
  const bodies = (sent: WebhookRequest[], type: string, url?: string) =>
    sent
      .filter((r) => r.headers['plant-store-event'] === type && (url === undefined || r.url === url))
      .map((r) => JSON.parse(r.body) as Record<string, unknown>);

  it("webhook.delivery.failed goes to the tenant's other subscribed endpoints and to operator subscriptions listing it, never to the failing one, and never about itself", async () => {
    const { sent, transport } = failing();
    const subscriptions = [{ url: URL_OPERATOR, secret: newSecret(), eventTypes: ['webhook.delivery.failed' as const] }];
    const s = store({ transport, retrySchedule: [5], subscriptions });
    const types = ['plant.created', 'webhook.delivery.failed'];
    const { endpoint: bad } = await s.webhooks.endpoints.create(acme, { url: URL_BAD, eventTypes: types });
    // A second failing endpoint subscribed to the reports: its failed report is not reported again (no loop).
    const { endpoint: bad2 } = await s.webhooks.endpoints.create(acme, { url: `${URL_BAD}/2`, eventTypes: ['webhook.delivery.failed'] });
    const { endpoint: watcher } = await s.webhooks.endpoints.create(acme, { url: URL_OK, eventTypes: ['webhook.delivery.failed'] });
    await s.webhooks.endpoints.create(globex, { url: `${URL_OK}/globex`, eventTypes: ['webhook.delivery.failed'] });
    await s.plants.create(acme, { id: 1, name: 'Fern' });
    const [failed] = (await s.webhooks.deliveries.list(acme, { endpoint: bad.id })).deliveries;
    await eventually(
      () => bodies(sent, 'webhook.delivery.failed', URL_OK).length === 1 && bodies(sent, 'webhook.delivery.failed', URL_OPERATOR).length === 1,
      'the reports',
    );
    await eventually(
      async () => (await s.webhooks.deliveries.list(acme, { endpoint: bad2.id, status: 'failed' })).deliveries.length === 1,
      'the report to the second failing endpoint failed',
    );
    await settle();

    const report = {
      deliveryId: failed!.id,
      endpointId: bad.id,
      eventType: 'plant.created',
      attempts: 2,
      lastError: 'receiver answered 500',
      at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
    };
    expect(bodies(sent, 'webhook.delivery.failed', URL_OK)).toEqual([report]);
    expect(bodies(sent, 'webhook.delivery.failed', URL_OPERATOR)).toEqual([{ tenant: 'acme', ...report }]);
    // Not to the failing endpoint itself, not to another tenant, and nothing about the failed report.
    expect(bodies(sent, 'webhook.delivery.failed', URL_BAD)).toEqual([]);
    expect(bodies(sent, 'webhook.delivery.failed', `${URL_OK}/globex`)).toEqual([]);
    expect((await s.webhooks.deliveries.list(acme, { endpoint: watcher.id })).deliveries).toHaveLength(1);
    expect((await s.webhooks.deliveries.list(acme, { eventType: 'webhook.delivery.failed' })).deliveries).toHaveLength(2);
  });

  it('no webhook.delivery.failed for a 410 or a test event', async () => {
    const { sent, transport } = fakeTransport((request) => {
      if (request.url === URL_BAD) return { kind: 'gone', statusCode: 410, reason: 'receiver answered 410 Gone: no more attempts' };
      return request.url === URL_OK ? { kind: 'delivered', statusCode: 204 } : { kind: 'retry', statusCode: 500, reason: 'receiver answered 500' };
    });
    const s = store({ transport, retrySchedule: [5] });
    await s.webhooks.endpoints.create(acme, { url: URL_BAD });
    const { endpoint: tested } = await s.webhooks.endpoints.create(acme, { url: `${URL_BAD}/test`, eventTypes: ['plant.deleted'] });
    await s.webhooks.endpoints.create(acme, { url: URL_OK, eventTypes: ['webhook.delivery.failed'] });
    await s.plants.create(acme, { id: 1, name: 'Fern' });
    await s.webhooks.endpoints.sendTest(acme, tested.id, { eventType: 'plant.created' });
    await eventually(async () => (await s.webhooks.deliveries.list(acme, { status: 'failed' })).deliveries.length === 2, 'the 410 and the test failed');
    await settle();
    expect(bodies(sent, 'webhook.delivery.failed')).toEqual([]);
  });

  it("webhook.endpoint.disabled goes to the tenant's other endpoints subscribed to it when one is disabled automatically", async () => {
    const { clock, advance } = movableClock();
    const { sent, transport } = failing();
    const subscriptions = [{ url: URL_OPERATOR, secret: newSecret(), tenant: 'acme', eventTypes: ['webhook.endpoint.disabled' as const] }];
    const s = store({ transport, retrySchedule: [5], disableAfterMs: 3_600_000, subscriptions }, { clock });
    const { endpoint: bad } = await s.webhooks.endpoints.create(acme, { url: URL_BAD, eventTypes: ['plant.created', 'webhook.endpoint.disabled'] });
    await s.webhooks.endpoints.create(acme, { url: URL_OK, eventTypes: ['webhook.endpoint.disabled'] });
    await s.plants.create(acme, { id: 1, name: 'Exhausted' });
    await eventually(async () => (await s.webhooks.deliveries.list(acme, { status: 'failed' })).deliveries.length === 1, 'the first message exhausted');
    advance(3_600_000);
    await s.plants.create(acme, { id: 2, name: 'Pending' });
    await eventually(
      () => bodies(sent, 'webhook.endpoint.disabled', URL_OK).length === 1 && bodies(sent, 'webhook.endpoint.disabled', URL_OPERATOR).length === 1,
      'the notices',
    );
    const { disabledReason } = await s.webhooks.endpoints.get(acme, bad.id);
    const enable = expect.stringContaining(`PATCH /webhooks/endpoints/${bad.id} with {"status":"enabled"} replays them`);
    const notice = { endpointId: bad.id, reason: disabledReason, at: expect.stringMatching(/Z$/), enable };
    expect(bodies(sent, 'webhook.endpoint.disabled', URL_OK)).toEqual([notice]);
    expect(bodies(sent, 'webhook.endpoint.disabled', URL_OPERATOR)).toEqual([{ tenant: 'acme', ...notice }]);
    expect(bodies(sent, 'webhook.endpoint.disabled', URL_BAD)).toEqual([]);
    // The operator subscription lists only the operational type: no plant.created for it.
    expect(sent.filter((r) => r.url === URL_OPERATOR && r.headers['plant-store-event'] === 'plant.created')).toEqual([]);
  });

  it('operational types are in the catalogue, subscribable, and refused on a subscription when unknown', async () => {
    const s = store();
    expect(s.webhooks.endpoints.eventTypes(acme).map((e) => e.type)).toEqual([
      'plant.created',
      'plant.deleted',
      'webhook.endpoint.disabled',
      'webhook.delivery.failed',
    ]);
    const { endpoint } = await s.webhooks.endpoints.create(acme, { url: URL_OK, eventTypes: ['webhook.endpoint.disabled'] });
    expect(endpoint.eventTypes).toEqual(['webhook.endpoint.disabled']);
    expect(() =>
      createPlantStore({
        storage: memoryStorage(),
        webhooks: { subscriptions: [{ url: URL_OK, secret: newSecret(), eventTypes: ['plant.deleted' as never] }] },
      }),
    ).toThrow(/eventTypes must be a non-empty array of plant.created, webhook.endpoint.disabled, webhook.delivery.failed/);
  });
});
