import { describe, expect, it } from 'vitest';
import type { Storage } from '../ports/storage.js';
import type { EndpointAttemptNote, EndpointHealth, NewWebhookEndpoint } from '../ports/webhook-endpoint-repository.js';
import type { WebhookEndpoint } from '../webhooks/endpoints/webhook-endpoint.js';
import { delivery, plant } from './storage-fixtures.js';

const T0 = 1_700_000_000_000;
const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
const NEXT_SECRET = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;

/** A new endpoint with sensible defaults (enabled, plant.created). */
export function newEndpoint(id: string, overrides: Partial<NewWebhookEndpoint> = {}): NewWebhookEndpoint {
  return { id, tenant: 'acme', url: 'https://receiver.example/hook', eventTypes: ['plant.created'], secret: SECRET, createdAt: T0, ...overrides };
}

/** The endpoint `newEndpoint` describes, as storage returns it. */
function stored(input: NewWebhookEndpoint): WebhookEndpoint {
  const { secret: _secret, createdAt, ordering = 'none', ...fields } = input;
  return { ...fields, ordering, status: 'enabled', createdAt, updatedAt: createdAt };
}

/** `WebhookEndpointRepository` contract, and the endpoint parts of `PlantRepository` and `WebhookOutbox`. */
export function describeWebhookEndpointConformance(storage: () => Storage): void {
  const endpoints = () => storage().endpoints;
  const outbox = () => storage().outbox;
  const create = (id: string, overrides: Partial<NewWebhookEndpoint> = {}) => endpoints().create(newEndpoint(id, overrides), 50);
  const created = (id: bigint, tenant = 'acme', at = T0) =>
    storage().plants.create(tenant, plant(id, `p${id}`), [], { eventType: 'plant.created', payload: `{"id":${id}}`, createdAt: at });
  const deliveriesOf = async (tenant = 'acme') => (await outbox().list({ tenant, limit: 100 }))!;

  describe('webhook endpoints', () => {
    it('creates an enabled endpoint and returns it, with optional fields only when given; a second one with that id is rejected', async () => {
      const full = newEndpoint('ep_a', { description: 'orders ü 🌿', rateLimit: 5, eventTypes: ['plant.created', 'plant.deleted'] });
      expect(await endpoints().create(full, 50)).toEqual(stored(full));
      expect(await create('ep_b')).toEqual(stored(newEndpoint('ep_b')));
      expect(await endpoints().get('acme', 'ep_a')).toEqual(stored(full));
      expect(await endpoints().get('acme', 'ep_b')).not.toHaveProperty('description');
      await expect(create('ep_a', { tenant: 'globex' })).rejects.toThrow();
    });

    it('creates nothing and returns undefined once the tenant has maxPerTenant endpoints, enabled or not; other tenants are not counted', async () => {
      await create('ep_a');
      await create('ep_b');
      await endpoints().update('acme', 'ep_b', { status: 'disabled', disabledReason: 'x', updatedAt: T0 + 1 });
      await endpoints().create(newEndpoint('ep_g1', { tenant: 'globex' }), 3);
      await endpoints().create(newEndpoint('ep_g2', { tenant: 'globex' }), 3);
      expect(await endpoints().create(newEndpoint('ep_c'), 3)).toEqual(stored(newEndpoint('ep_c')));
      expect(await endpoints().create(newEndpoint('ep_d'), 3)).toBeUndefined();
      expect(await endpoints().create(newEndpoint('ep_e'), 1)).toBeUndefined();
      expect(await endpoints().get('acme', 'ep_d')).toBeUndefined();
      expect((await endpoints().list('acme', { limit: 10 })).map((endpoint) => endpoint.id)).toEqual(['ep_a', 'ep_b', 'ep_c']);
      // A deleted endpoint frees its place.
      await endpoints().delete('acme', 'ep_a', T0 + 2);
      expect(await endpoints().create(newEndpoint('ep_d'), 3)).toEqual(stored(newEndpoint('ep_d')));
    });

    it('a plant write at the cap queues one delivery per matching endpoint, each with its own msg_ id of a version 4 UUID', async () => {
      for (let index = 0; index < 12; index++) await create(`ep_${String(index).padStart(2, '0')}`);
      await created(1n);
      await created(2n);
      const deliveries = await deliveriesOf();
      expect(deliveries).toHaveLength(24);
      expect(new Set(deliveries.map((d) => d.id)).size).toBe(24);
      for (const d of deliveries) expect(d.id).toMatch(/^msg_[0-9a-f]{12}4[0-9a-f]{3}[89ab][0-9a-f]{15}$/);
      expect(new Set(deliveries.map((d) => d.endpointId)).size).toBe(12);
    });

    it("keeps tenants apart: another tenant's id is undefined or false for every tenant member", async () => {
      await create('ep_a');
      expect(await endpoints().get('globex', 'ep_a')).toBeUndefined();
      expect(await endpoints().list('globex', { limit: 10 })).toEqual([]);
      expect(await endpoints().update('globex', 'ep_a', { url: 'https://x.example/', updatedAt: T0 + 1 })).toBeUndefined();
      expect(await endpoints().secrets('globex', 'ep_a')).toBeUndefined();
      expect(await endpoints().rotateSecret('globex', 'ep_a', NEXT_SECRET, T0 + 10, T0 + 1)).toBe(false);
      expect(await endpoints().delete('globex', 'ep_a', T0 + 1)).toBe(false);
      expect(await endpoints().get('acme', 'ep_a')).toEqual(stored(newEndpoint('ep_a')));
      expect(await endpoints().get('acme', 'ep_missing')).toBeUndefined();
    });

    it("lists a tenant's endpoints in ascending (bytewise) id order with keyset pages; listAll spans tenants", async () => {
      for (const id of ['ep_b', 'ep_A', 'ep_-', 'ep__', 'ep_a']) await create(id);
      await create('ep_c', { tenant: 'globex' });
      const ids = async (page: Promise<WebhookEndpoint[]>) => (await page).map((endpoint) => endpoint.id);
      expect(await ids(endpoints().list('acme', { limit: 10 }))).toEqual(['ep_-', 'ep_A', 'ep__', 'ep_a', 'ep_b']);
      expect(await ids(endpoints().list('acme', { limit: 2, after: 'ep_A' }))).toEqual(['ep__', 'ep_a']);
      expect(await ids(endpoints().list('acme', { limit: 2, after: 'ep_b' }))).toEqual([]);
      expect(await ids(endpoints().listAll({ limit: 10, after: 'ep_a' }))).toEqual(['ep_b', 'ep_c']);
    });

    it('updates given fields only, removes optional ones given null, and clears the reason when enabled', async () => {
      await create('ep_a', { description: 'd', rateLimit: 3 });
      const changed = await endpoints().update('acme', 'ep_a', {
        url: 'https://other.example/h',
        eventTypes: ['plant.deleted'],
        description: null,
        status: 'disabled',
        disabledReason: 'disabled by the tenant',
        updatedAt: T0 + 5,
      });
      const expected = { ...stored(newEndpoint('ep_a')), url: 'https://other.example/h', eventTypes: ['plant.deleted'], rateLimit: 3 };
      expect(changed).toEqual({ ...expected, status: 'disabled', disabledReason: 'disabled by the tenant', updatedAt: T0 + 5 });
      const enabled = await endpoints().update('acme', 'ep_a', { status: 'enabled', rateLimit: null, updatedAt: T0 + 6 });
      const { rateLimit: _removed, ...withoutRate } = expected;
      expect(enabled).toEqual({ ...withoutRate, updatedAt: T0 + 6 });
      expect(await endpoints().get('acme', 'ep_a')).toEqual(enabled);
    });

    it('keeps custom headers exactly (names as written, values with any visible ASCII), replaces them as a whole, removes them given null', async () => {
      const headers = { Authorization: 'Bearer a=b; c="d"', 'X-Team': ' garden\tshed ', 'x-empty': '' };
      await create('ep_a', { headers });
      await create('ep_b');
      expect(await endpoints().get('acme', 'ep_a')).toEqual(stored(newEndpoint('ep_a', { headers })));
      expect(await endpoints().get('acme', 'ep_b')).not.toHaveProperty('headers');
      expect((await endpoints().find('ep_a'))!.endpoint.headers).toEqual(headers);
      const replaced = await endpoints().update('acme', 'ep_a', { headers: { 'X-Other': '1' }, updatedAt: T0 + 1 });
      expect(replaced!.headers).toEqual({ 'X-Other': '1' });
      expect((await endpoints().update('acme', 'ep_a', { description: 'kept', updatedAt: T0 + 2 }))!.headers).toEqual({ 'X-Other': '1' });
      expect(await endpoints().update('acme', 'ep_a', { headers: null, updatedAt: T0 + 3 })).not.toHaveProperty('headers');
      expect(await endpoints().get('acme', 'ep_a')).not.toHaveProperty('headers');
    });

    it('rotates secrets (whsec_ or whsk_): the new one current, the old one previous until the given time', async () => {
      const current = `whsk_${Buffer.alloc(32, 1).toString('base64')}`;
      const next = `whsk_${Buffer.alloc(32, 2).toString('base64')}`;
      await create('ep_k', { secret: current });
      expect(await endpoints().secrets('acme', 'ep_k')).toEqual({ current });
      expect(await endpoints().rotateSecret('acme', 'ep_k', next, T0 + 10, T0 + 1)).toBe(true);
      expect((await endpoints().find('ep_k'))!.secrets).toEqual({ current: next, previous: current, previousExpiresAt: T0 + 10 });
      await create('ep_a');
      expect(await endpoints().secrets('acme', 'ep_a')).toEqual({ current: SECRET });
      expect(await endpoints().rotateSecret('acme', 'ep_a', NEXT_SECRET, T0 + 86_400_000, T0 + 1)).toBe(true);
      expect(await endpoints().secrets('acme', 'ep_a')).toEqual({ current: NEXT_SECRET, previous: SECRET, previousExpiresAt: T0 + 86_400_000 });
      expect((await endpoints().get('acme', 'ep_a'))!.updatedAt).toBe(T0 + 1);
      // Health is optional: a storage that reports it reports a new endpoint's as healthy.
      const { health, ...found } = (await endpoints().find('ep_a'))!;
      expect(found).toEqual({
        endpoint: { ...stored(newEndpoint('ep_a')), updatedAt: T0 + 1 },
        secrets: { current: NEXT_SECRET, previous: SECRET, previousExpiresAt: T0 + 86_400_000 },
      });
      expect(health ?? {}).toEqual({});
      expect(await endpoints().find('ep_missing')).toBeUndefined();
    });

    it('queues one delivery per subscribed endpoint of the tenant with the plant (parked for a disabled one), in its transaction', async () => {
      await create('ep_created');
      await create('ep_both', { eventTypes: ['plant.deleted', 'plant.created'] });
      await create('ep_deleted', { eventTypes: ['plant.deleted'] });
      await create('ep_off');
      await endpoints().setStatus('ep_off', 'disabled', 'by hand', T0);
      await create('ep_globex', { tenant: 'globex' });
      const event = { eventType: 'plant.created', payload: '{"id":1,"name":"Fern"}', createdAt: T0 + 7 } as const;
      const result = await storage().plants.create('acme', plant(1n, 'Fern'), [delivery('msg_sub', { tenant: 'acme', endpointId: 'sub_x' })], event);
      expect(result.created).toBe(true);
      const all = await deliveriesOf();
      expect(all.filter((d) => d.status === 'parked').map((d) => d.endpointId)).toEqual(['ep_off']);
      const queued = all.filter((d) => d.status === 'pending');
      expect(queued.map((d) => d.endpointId).sort()).toEqual(['ep_both', 'ep_created']);
      for (const d of queued) {
        expect(d).toMatchObject({ tenant: 'acme', eventType: 'plant.created', payload: '{"id":1,"name":"Fern"}', createdAt: T0 + 7, status: 'pending' });
        expect(d.id).toMatch(/^msg_[0-9a-f]{32}$/);
      }
      expect(new Set(all.map((d) => d.id)).size).toBe(3);
      // A replay writes nothing.
      expect((await created(1n)).created).toBe(false);
      expect(await deliveriesOf()).toHaveLength(3);
      expect(await outbox().get('msg_sub')).toMatchObject({ endpointId: 'sub_x' });
    });

    it('keeps a filter exactly (integers as bigint), replaces it as a whole, removes it given null', async () => {
      const filter = { 'data.tag': { $in: ['indoor', 'rare'] }, $or: [{ 'data.id': { $gt: 9007199254740993n } }, { type: 'plant.deleted' }] };
      expect(await create('ep_a', { filter })).toEqual(stored(newEndpoint('ep_a', { filter })));
      expect(await endpoints().get('acme', 'ep_a')).toEqual(stored(newEndpoint('ep_a', { filter })));
      expect((await endpoints().find('ep_a'))!.endpoint.filter).toEqual(filter);
      expect((await endpoints().list('acme', { limit: 10 }))[0]!.filter).toEqual(filter);
      const replaced = await endpoints().update('acme', 'ep_a', { filter: { tenant: 'acme' }, updatedAt: T0 + 1 });
      expect(replaced!.filter).toEqual({ tenant: 'acme' });
      expect((await endpoints().update('acme', 'ep_a', { description: 'kept', updatedAt: T0 + 2 }))!.filter).toEqual({ tenant: 'acme' });
      expect(await endpoints().update('acme', 'ep_a', { filter: null, updatedAt: T0 + 3 })).not.toHaveProperty('filter');
    });

    it('queues to an endpoint with a filter only the events it matches (an array matches when it contains the value); others get every event', async () => {
      await create('ep_all', { eventTypes: ['plant.created', 'plant.deleted'] });
      await create('ep_indoor', { filter: { 'data.tag': { $in: ['indoor', 'rare'] } } });
      await create('ep_deleted', { eventTypes: ['plant.created', 'plant.deleted'], filter: { type: 'plant.deleted', tenant: 'acme' } });
      await create('ep_big', { filter: { 'data.id': 9223372036854775807n } });
      await create('ep_listed', { filter: { 'data.tags': 'rare', 'data.note': { $exists: false } } });
      await create('ep_off', { filter: { 'data.tag': 'indoor' } });
      await endpoints().setStatus('ep_off', 'disabled', 'by hand', T0);
      const write = (id: bigint, payload: string) =>
        storage().plants.create('acme', plant(id, 'p'), [], { eventType: 'plant.created', payload, createdAt: T0 + Number(id) });
      const queuedFor = async (id: bigint) =>
        (await deliveriesOf())
          .filter((d) => d.createdAt === T0 + Number(id))
          .map((d) => d.endpointId)
          .sort();
      await write(1n, '{"id":1,"name":"p","tag":"indoor"}');
      // The disabled one's filter decides what is parked for it.
      expect(await queuedFor(1n)).toEqual(['ep_all', 'ep_indoor', 'ep_off']);
      await write(2n, '{"id":2,"name":"p","tag":"outdoor"}');
      expect(await queuedFor(2n)).toEqual(['ep_all']);
      await write(3n, '{"id":9223372036854775807,"name":"p","tags":["indoor","rare"]}');
      expect(await queuedFor(3n)).toEqual(['ep_all', 'ep_big', 'ep_listed']);
      await write(4n, '{"id":9223372036854775806,"name":"p"}');
      expect(await queuedFor(4n)).toEqual(['ep_all']);
      expect(await storage().plants.delete('acme', 1n, { eventType: 'plant.deleted', payload: '{"id":1}', createdAt: T0 + 5 })).toBe(true);
      expect(await queuedFor(5n)).toEqual(['ep_all', 'ep_deleted']);
    });

    it('matches each write against the filters as they are then: added, changed, removed or disabled since the last write', async () => {
      await create('ep_f', { filter: { 'data.tag': 'indoor' } });
      const write = (id: bigint, tag: string) =>
        storage().plants.create('acme', plant(id, 'p', tag), [], {
          eventType: 'plant.created',
          payload: `{"id":${id},"name":"p","tag":"${tag}"}`,
          createdAt: T0,
        });
      const queued = async () => (await deliveriesOf()).map((d) => `${d.endpointId}:${JSON.parse(d.payload).id}`).sort();
      await write(1n, 'indoor');
      await write(2n, 'rare');
      expect(await queued()).toEqual(['ep_f:1']);
      await endpoints().update('acme', 'ep_f', { filter: { 'data.tag': 'rare' }, updatedAt: T0 + 1 });
      await create('ep_g', { filter: { 'data.tag': { $ne: 'indoor' } } });
      await write(3n, 'indoor');
      await write(4n, 'rare');
      expect(await queued()).toEqual(['ep_f:1', 'ep_f:4', 'ep_g:4']);
      await endpoints().update('acme', 'ep_f', { filter: null, updatedAt: T0 + 2 });
      await endpoints().setStatus('ep_g', 'disabled', 'by hand', T0 + 2);
      await write(5n, 'indoor');
      expect(await queued()).toEqual(['ep_f:1', 'ep_f:4', 'ep_f:5', 'ep_g:4']);
      // Another tenant's filters are its own.
      await create('ep_h', { tenant: 'globex', filter: { 'data.tag': 'indoor' } });
      await storage().plants.create('globex', plant(6n, 'p', 'rare'), [], { eventType: 'plant.created', payload: '{"id":6,"tag":"rare"}', createdAt: T0 });
      expect(await deliveriesOf('globex')).toEqual([]);
    });

    it('queues plant.deleted deliveries with the delete, and nothing when there was no plant', async () => {
      await create('ep_deleted', { eventTypes: ['plant.deleted'] });
      await created(5n);
      const event = { eventType: 'plant.deleted', payload: '{"id":5}', createdAt: T0 + 9 } as const;
      expect(await storage().plants.delete('acme', 5n, event)).toBe(true);
      expect(await storage().plants.get('acme', 5n)).toBeUndefined();
      expect(await deliveriesOf()).toEqual([
        expect.objectContaining({ endpointId: 'ep_deleted', eventType: 'plant.deleted', payload: '{"id":5}', createdAt: T0 + 9 }),
      ]);
      expect(await storage().plants.delete('acme', 5n, event)).toBe(false);
      expect(await storage().plants.delete('globex', 6n, event)).toBe(false);
      expect(await deliveriesOf()).toHaveLength(1);
    });

    it('keeps operational event types on an endpoint; plant writes queue nothing for them, an enqueued event is listed by type', async () => {
      const operational = ['webhook.endpoint.disabled', 'webhook.delivery.failed'] as const;
      expect(await create('ep_ops', { eventTypes: operational })).toEqual(stored(newEndpoint('ep_ops', { eventTypes: operational })));
      expect((await endpoints().get('acme', 'ep_ops'))?.eventTypes).toEqual(operational);
      await created(1n);
      expect(await storage().plants.delete('acme', 1n, { eventType: 'plant.deleted', payload: '{"id":1}', createdAt: T0 + 1 })).toBe(true);
      expect(await deliveriesOf()).toEqual([]);
      const payload = '{"endpointId":"ep_other","reason":"failing","at":"2023-11-14T22:13:20.000Z"}';
      await outbox().enqueue({ id: 'msg_ops', tenant: 'acme', endpointId: 'ep_ops', eventType: 'webhook.endpoint.disabled', payload, createdAt: T0 + 2 });
      expect(await outbox().list({ tenant: 'acme', eventType: 'webhook.endpoint.disabled' })).toEqual([
        expect.objectContaining({ id: 'msg_ops', endpointId: 'ep_ops', payload, status: 'pending', nextAttemptAt: T0 + 2 }),
      ]);
    });

    it('parks pending deliveries when the endpoint is disabled, ends them failed when it is deleted, leaving others alone', async () => {
      await create('ep_a');
      await create('ep_b');
      await created(1n);
      await created(2n, 'acme', T0 + 1);
      // One delivery to ep_a is delivered; the others are still pending, one of them leased.
      const claimed = await outbox().claimDue({ owner: 'o', now: T0 + 5, leaseMs: 1000, limit: 10 });
      const toA = claimed.find((d) => d.endpointId === 'ep_a')!;
      expect(await outbox().recordAttempt(toA.id, 'o', { at: T0 + 5, durationMs: 3, statusCode: 204 }, { status: 'delivered' })).toBe(true);
      const toB = claimed.filter((d) => d.endpointId === 'ep_b').map((d) => d.id);
      await outbox().release(toB, 'o');

      const disabled = await endpoints().setStatus('ep_a', 'disabled', 'all attempts failed', T0 + 20);
      expect(disabled).toMatchObject({ status: 'disabled', disabledReason: 'all attempts failed', updatedAt: T0 + 20 });
      const byEndpoint = (id: string) => deliveriesOf().then((all) => all.filter((d) => d.endpointId === id));
      const a = await byEndpoint('ep_a');
      // The one in flight (leased) is left to its attempt, so it is never sent twice at once; the attempt parks it.
      expect(a.map((d) => d.status).sort()).toEqual(['delivered', 'pending']);
      const inFlight = a.find((d) => d.status === 'pending')!;
      const ending = { at: T0 + 25, durationMs: 0, error: 'endpoint disabled' };
      expect(await outbox().recordAttempt(inFlight.id, 'o', ending, { status: 'parked' })).toBe(true);
      const parkedA = await outbox().get(inFlight.id);
      expect(parkedA).toMatchObject({ status: 'parked', attempts: [ending] });
      expect(parkedA).not.toHaveProperty('nextAttemptAt');
      expect((await byEndpoint('ep_b')).map((d) => d.status)).toEqual(['pending', 'pending']);

      expect(await endpoints().delete('acme', 'ep_b', T0 + 30)).toBe(true);
      expect(await endpoints().get('acme', 'ep_b')).toBeUndefined();
      for (const d of await byEndpoint('ep_b')) {
        expect(d).toMatchObject({ status: 'failed', attemptCount: 1, attempts: [{ at: T0 + 30, durationMs: 0, error: 'endpoint deleted' }] });
      }
      expect(await outbox().claimDue({ owner: 'o', now: T0 + 100, leaseMs: 1000, limit: 10 })).toEqual([]);
      expect(await endpoints().setStatus('ep_b', 'enabled', undefined, T0)).toBeUndefined();
    });

    it('keeps a failing streak per endpoint: its start, the first exhausted message, cleared by a success; find reports it, if at all, as last noted', async () => {
      await create('ep_a');
      /** What `find` reports after the note returned `health` (the health it reports is optional). */
      const found = async (health: EndpointHealth | undefined) => (await endpoints().find('ep_a'))!.health ?? health;
      const note = async (attempt: EndpointAttemptNote) => {
        const health = await endpoints().noteAttempt('ep_a', attempt);
        expect(await found(health)).toEqual(health);
        return health;
      };
      expect(await found({})).toEqual({});
      expect(await note({ at: T0 + 1, succeeded: false, exhausted: false })).toEqual({ failingSince: T0 + 1 });
      expect(await note({ at: T0 + 2, succeeded: false, exhausted: true })).toEqual({ failingSince: T0 + 1, exhaustedAt: T0 + 2 });
      expect(await note({ at: T0 + 3, succeeded: false, exhausted: true })).toEqual({ failingSince: T0 + 1, exhaustedAt: T0 + 2 });
      expect(await note({ at: T0 + 4, succeeded: true, exhausted: false })).toEqual({});
      expect(await note({ at: T0 + 5, succeeded: false, exhausted: false })).toEqual({ failingSince: T0 + 5 });
      expect(await endpoints().noteAttempt('ep_missing', { at: T0, succeeded: true, exhausted: false })).toBeUndefined();
    });
  });

  describe('webhook outbox: tenant view, resend, recover', () => {
    it("lists only the tenant's endpoint deliveries, newest first, filtered, with keyset pages", async () => {
      await create('ep_a');
      await create('ep_b');
      await create('ep_g', { tenant: 'globex' });
      for (let id = 1n; id <= 3n; id++) await created(id, 'acme', T0 + Number(id));
      await created(9n, 'globex', T0 + 50);
      await storage().plants.create('acme', plant(10n, 'x'), [delivery('msg_sub', { tenant: 'acme', endpointId: 'sub_x', createdAt: T0 + 60 })]);
      const all = await deliveriesOf();
      expect(all).toHaveLength(6);
      expect(all.map((d) => d.createdAt)).toEqual([T0 + 3, T0 + 3, T0 + 2, T0 + 2, T0 + 1, T0 + 1]);
      const pageOne = (await outbox().list({ tenant: 'acme', limit: 4 }))!;
      const pageTwo = (await outbox().list({ tenant: 'acme', limit: 4, after: pageOne[3]!.id }))!;
      expect([...pageOne, ...pageTwo].map((d) => d.id)).toEqual(all.map((d) => d.id));
      const onlyB = (await outbox().list({ tenant: 'acme', endpointId: 'ep_b', limit: 10 }))!;
      expect(onlyB.map((d) => d.endpointId)).toEqual(['ep_b', 'ep_b', 'ep_b']);
      expect(await outbox().list({ tenant: 'acme', status: 'failed', limit: 10 })).toEqual([]);
      expect(await outbox().list({ tenant: 'acme', endpointId: 'ep_g', limit: 10 })).toEqual([]);
      // A cursor that is not one of the tenant's endpoint deliveries.
      const globexId = (await deliveriesOf('globex'))[0]!.id;
      expect(await outbox().list({ tenant: 'acme', limit: 10, after: globexId })).toBeUndefined();
      expect(await outbox().list({ tenant: 'acme', limit: 10, after: 'msg_sub' })).toBeUndefined();
      expect(await outbox().list({ tenant: 'acme', limit: 10, after: 'msg_unknown' })).toBeUndefined();
    });

    it('resends a delivery in any state (from: any), due now, keeping its id and attempts', async () => {
      await create('ep_a');
      await created(1n);
      const [queued] = await deliveriesOf();
      await outbox().claimDue({ owner: 'o', now: T0 + 1, leaseMs: 1000, limit: 1 });
      await outbox().recordAttempt(queued!.id, 'o', { at: T0 + 1, durationMs: 2, statusCode: 204 }, { status: 'delivered' });
      const resend = (id: string, now: number) => outbox().requeue({ id, from: 'any' }, now);
      expect(await resend(queued!.id, T0 + 100)).toBe(1);
      expect(await outbox().get(queued!.id)).toMatchObject({ status: 'pending', nextAttemptAt: T0 + 100, attemptCount: 1 });
      expect(await resend(queued!.id, T0 + 200)).toBe(1);
      expect(await outbox().get(queued!.id)).toMatchObject({ status: 'pending', nextAttemptAt: T0 + 200 });
      expect((await outbox().claimDue({ owner: 'o', now: T0 + 200, leaseMs: 1000, limit: 5 })).map((d) => d.id)).toEqual([queued!.id]);
      expect(await resend('msg_unknown', T0)).toBe(0);
    });

    it('recovers the failed deliveries of one endpoint created at or after a time', async () => {
      await create('ep_a');
      await create('ep_b');
      for (let id = 1n; id <= 3n; id++) await created(id, 'acme', T0 + Number(id) * 10);
      await endpoints().setStatus('ep_a', 'disabled', 'x', T0 + 100);
      await endpoints().setStatus('ep_b', 'disabled', 'x', T0 + 100);
      await endpoints().setStatus('ep_a', 'enabled', undefined, T0 + 200, { action: 'discard' });
      expect(await outbox().requeue({ endpointId: 'ep_a', since: T0 + 20 }, T0 + 300)).toBe(2);
      const statuses = (await deliveriesOf()).map((d) => `${d.endpointId}@${d.createdAt - T0}:${d.status}`).sort();
      expect(statuses).toEqual(['ep_a@10:failed', 'ep_a@20:pending', 'ep_a@30:pending', 'ep_b@10:parked', 'ep_b@20:parked', 'ep_b@30:parked']);
      expect(await outbox().requeue({ endpointId: 'ep_a', since: T0 + 20 }, T0 + 300)).toBe(0);
      expect(await outbox().nextDueAt()).toBe(T0 + 300);
    });
  });
}
