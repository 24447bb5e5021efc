import { describe, expect, it } from 'vitest';
import type { Storage } from '../ports/storage.js';
import type { AttemptOutcome, Delivery } from '../ports/webhook-outbox.js';
import { ENDPOINT_DELETED_ERROR, PARKED_DISCARDED_ERROR } from '../webhooks/endpoints/webhook-endpoint.js';
import { plant } from './storage-fixtures.js';
import { newEndpoint } from './webhook-endpoint-conformance.js';

const T0 = 1_700_000_000_000;
const LEASE_MS = 1_000;

/** Opens a new, empty storage that keeps at most `limit` parked messages per endpoint (its `parkedLimit` option); the suite closes it. */
export type OpenWithParkedLimit = (limit: number) => Promise<Storage>;

/**
 * Messages kept for a disabled endpoint (`parked`), and what enabling it does with them: the fan-out that parks, the disable that
 * parks what was pending, the replay (in order, each line at its back) or the discard, and the bound per endpoint.
 */
export function describeParkedDeliveryConformance(storage: () => Storage, withParkedLimit?: OpenWithParkedLimit): void {
  const outbox = () => storage().outbox;
  const endpoints = () => storage().endpoints;
  const both = ['plant.created', 'plant.deleted'] as const;
  const ordered = (on: Storage = storage()) => on.endpoints.create(newEndpoint('ep_ordered', { eventTypes: [...both], ordering: 'plant' }), 50);
  const plain = (on: Storage = storage()) => on.endpoints.create(newEndpoint('ep_plain', { eventTypes: [...both] }), 50);
  const create = (id: bigint, at: number, on: Storage = storage()) =>
    on.plants.create('acme', plant(id, `p${id}`), [], { eventType: 'plant.created', payload: `{"id":${id}}`, createdAt: at });
  const remove = (id: bigint, at: number) => storage().plants.delete('acme', id, { eventType: 'plant.deleted', payload: `{"id":${id}}`, createdAt: at });
  /** Oldest first. */
  const to = async (endpointId: string, on: Storage = storage()): Promise<Delivery[]> => (await on.outbox.list({ endpointId, limit: 1000 }))!.reverse();
  const disable = (id: string, at: number, on: Storage = storage()) => on.endpoints.setStatus(id, 'disabled', 'by hand', at);
  const claim = async (owner: string, now: number) => outbox().claimDue({ owner, now, leaseMs: LEASE_MS, limit: 50 });
  const end = (id: string, owner: string, at: number, outcome: AttemptOutcome) =>
    outbox().recordAttempt(id, owner, { at, durationMs: 5, statusCode: outcome.status === 'delivered' ? 200 : 500 }, outcome);
  /** `<event> <payload>` of what a dispatcher gets, one claim at a time, delivering each: the order a receiver sees. */
  const drain = async (from: number) => {
    const seen: string[] = [];
    for (let now = from; now < from + 1000; now += 10) {
      const claimed = await claim('d', now);
      if (claimed.length === 0 && (await outbox().pendingStats()).count === 0) break;
      for (const d of claimed) {
        seen.push(`${d.eventType} ${d.payload}`);
        await end(d.id, 'd', now, { status: 'delivered' });
      }
    }
    return seen;
  };

  describe('parked messages (kept while an endpoint is disabled)', () => {
    it('parks a write for a disabled endpoint: never due, never claimed, in no count of the pending backlog, listed by status', async () => {
      await ordered();
      await plain();
      await disable('ep_ordered', T0);
      await disable('ep_plain', T0);
      await create(1n, T0 + 1);
      await remove(1n, T0 + 2);
      const [created, deleted] = await to('ep_ordered');
      expect(created).toMatchObject({ status: 'parked', orderingKey: '1', attemptCount: 0, attempts: [], createdAt: T0 + 1 });
      expect(deleted).toMatchObject({ status: 'parked', orderingKey: '1', eventType: 'plant.deleted' });
      for (const d of [created, deleted]) {
        expect(d).not.toHaveProperty('nextAttemptAt');
        expect(d).not.toHaveProperty('waitingBehind');
      }
      expect((await to('ep_plain')).map((d) => d.status)).toEqual(['parked', 'parked']);
      expect(await to('ep_plain').then((all) => all[0])).not.toHaveProperty('orderingKey');
      expect(await claim('a', T0 + 100)).toEqual([]);
      expect(await outbox().pendingStats()).toEqual({ count: 0 });
      expect(await outbox().nextDueAt()).toBeUndefined();
      expect(await outbox().waitingSince(T0 + 100)).toEqual(new Map());
      expect(await outbox().stuckLines(10)).toEqual([]);
      expect((await outbox().list({ tenant: 'acme', status: 'parked', limit: 10 }))!.map((d) => d.id).sort()).toEqual(
        [...(await to('ep_ordered')), ...(await to('ep_plain'))].map((d) => d.id).sort(),
      );
      expect(await outbox().list({ tenant: 'acme', status: 'pending', limit: 10 })).toEqual([]);
    });

    it('parks what a disable finds pending, held ones included; one in flight is left to its attempt, which parks it', async () => {
      await ordered();
      await create(1n, T0);
      await remove(1n, T0 + 1);
      const [inFlight, ...others] = await claim('a', T0 + 5);
      expect(inFlight).toMatchObject({ payload: '{"id":1}', eventType: 'plant.created' });
      expect(others).toEqual([]);
      await create(2n, T0 + 6);
      await disable('ep_ordered', T0 + 10);
      expect((await to('ep_ordered')).map((d) => d.status)).toEqual(['pending', 'parked', 'parked']);
      expect(await outbox().pendingStats()).toMatchObject({ count: 1 });
      const ending = { at: T0 + 20, durationMs: 0, error: 'endpoint disabled' };
      expect(await outbox().recordAttempt(inFlight!.id, 'a', ending, { status: 'parked' })).toBe(true);
      const parked = await outbox().get(inFlight!.id);
      expect(parked).toMatchObject({ status: 'parked', attemptCount: 1, attempts: [ending] });
      expect(parked).not.toHaveProperty('nextAttemptAt');
      expect(await outbox().pendingStats()).toEqual({ count: 0 });
      expect(await claim('a', T0 + 100)).toEqual([]);
    });

    it('replays on enable (by default) in creation order, each plant in its line, due at the enable; a parked attempt uses up no retry', async () => {
      await ordered();
      await create(1n, T0);
      const [inFlight] = await claim('a', T0 + 1);
      await disable('ep_ordered', T0 + 2);
      await end(inFlight!.id, 'a', T0 + 3, { status: 'parked' });
      await remove(1n, T0 + 4);
      await create(2n, T0 + 5);
      await create(1n, T0 + 6);
      const enabled = await endpoints().setStatus('ep_ordered', 'enabled', undefined, T0 + 100);
      expect(enabled).toMatchObject({ status: 'enabled', updatedAt: T0 + 100 });
      const [created1, deleted1, created2, again1] = await to('ep_ordered');
      expect(created1).toMatchObject({ status: 'pending', nextAttemptAt: T0 + 100, attemptCount: 1 });
      expect(deleted1).toMatchObject({ status: 'pending', waitingBehind: created1!.id });
      expect(deleted1).not.toHaveProperty('nextAttemptAt');
      expect(created2).toMatchObject({ status: 'pending', nextAttemptAt: T0 + 100 });
      expect(again1).toMatchObject({ status: 'pending', waitingBehind: deleted1!.id });
      const claimed = await claim('b', T0 + 100);
      expect(claimed.map((d) => d.payload).sort()).toEqual(['{"id":1}', '{"id":2}']);
      // The attempt that found the endpoint disabled does not count toward the retry schedule.
      expect(claimed.find((d) => d.id === created1!.id)).toMatchObject({ attemptCount: 0 });
      for (const d of claimed) await end(d.id, 'b', T0 + 100, { status: 'delivered' });
      expect(await drain(T0 + 110)).toEqual(['plant.deleted {"id":1}', 'plant.created {"id":1}']);
    });

    it('replays after a message still in flight at the enable, at the back of its line', async () => {
      await ordered();
      await create(1n, T0);
      const [inFlight] = await claim('a', T0 + 1);
      await disable('ep_ordered', T0 + 2);
      await remove(1n, T0 + 3);
      await endpoints().setStatus('ep_ordered', 'enabled', undefined, T0 + 4);
      const [, deleted] = await to('ep_ordered');
      expect(deleted).toMatchObject({ status: 'pending', waitingBehind: inFlight!.id });
      expect(await claim('b', T0 + 5)).toEqual([]);
      await end(inFlight!.id, 'a', T0 + 6, { status: 'delivered' });
      expect(await drain(T0 + 10)).toEqual(['plant.deleted {"id":1}']);
    });

    it('replays those parked since a time and discards the older ones, which can still be recovered', async () => {
      await plain();
      await disable('ep_plain', T0);
      for (let id = 1n; id <= 4n; id++) await create(id, T0 + Number(id) * 10);
      await endpoints().setStatus('ep_plain', 'enabled', undefined, T0 + 100, { action: 'replay', since: T0 + 30 });
      const all = await to('ep_plain');
      expect(all.map((d) => `${d.payload}:${d.status}`)).toEqual(['{"id":1}:failed', '{"id":2}:failed', '{"id":3}:pending', '{"id":4}:pending']);
      const discarded = { at: T0 + 100, durationMs: 0, error: PARKED_DISCARDED_ERROR };
      expect(all[0]).toMatchObject({ attemptCount: 1, attempts: [discarded] });
      expect(await drain(T0 + 100)).toEqual(['plant.created {"id":3}', 'plant.created {"id":4}']);
      expect(await outbox().requeue({ endpointId: 'ep_plain', since: T0 }, T0 + 2000)).toBe(2);
      expect(await drain(T0 + 2000)).toEqual(['plant.created {"id":1}', 'plant.created {"id":2}']);
    });

    it('discards on enable when told: every parked message ends failed, left out of the attempt stats', async () => {
      await ordered();
      await disable('ep_ordered', T0);
      await create(1n, T0 + 1);
      await remove(1n, T0 + 2);
      const enabled = await endpoints().update('acme', 'ep_ordered', { status: 'enabled', parked: { action: 'discard' }, updatedAt: T0 + 50 });
      expect(enabled).toMatchObject({ status: 'enabled' });
      for (const d of await to('ep_ordered')) {
        expect(d).toMatchObject({ status: 'failed', attempts: [{ at: T0 + 50, durationMs: 0, error: PARKED_DISCARDED_ERROR }] });
      }
      expect(await claim('a', T0 + 100)).toEqual([]);
      expect(await outbox().endpointAttemptStats('ep_ordered', [T0])).toEqual({ windows: [{ succeeded: 0, failed: 0 }] });
      // Enabled again, writes queue as before.
      await create(2n, T0 + 60);
      expect((await to('ep_ordered')).at(-1)).toMatchObject({ status: 'pending', nextAttemptAt: T0 + 60 });
    });

    it('parks by a tenant update too; enabling an endpoint that is already enabled leaves its deliveries alone', async () => {
      await plain();
      await create(1n, T0);
      expect(await endpoints().update('acme', 'ep_plain', { status: 'disabled', disabledReason: 'x', updatedAt: T0 + 1 })).toMatchObject({
        status: 'disabled',
      });
      expect((await to('ep_plain')).map((d) => d.status)).toEqual(['parked']);
      await endpoints().update('acme', 'ep_plain', { status: 'enabled', updatedAt: T0 + 2 });
      expect((await to('ep_plain'))[0]).toMatchObject({ status: 'pending', nextAttemptAt: T0 + 2 });
      await endpoints().update('acme', 'ep_plain', { status: 'enabled', parked: { action: 'discard' }, updatedAt: T0 + 3 });
      await endpoints().setStatus('ep_plain', 'enabled', undefined, T0 + 4, { action: 'discard' });
      expect((await to('ep_plain'))[0]).toMatchObject({ status: 'pending', nextAttemptAt: T0 + 2 });
    });

    it("ends an endpoint's parked messages failed when it is deleted", async () => {
      await plain();
      await disable('ep_plain', T0);
      await create(1n, T0 + 1);
      expect(await endpoints().delete('acme', 'ep_plain', T0 + 10)).toBe(true);
      expect(await to('ep_plain')).toEqual([
        expect.objectContaining({ status: 'failed', attempts: [{ at: T0 + 10, durationMs: 0, error: ENDPOINT_DELETED_ERROR }] }),
      ]);
    });

    it('prunes a parked message like a finished one, from when it was parked', async () => {
      await plain();
      await create(1n, T0);
      await disable('ep_plain', T0 + 500);
      await create(2n, T0 + 600);
      expect(await outbox().prune({ olderThan: T0 + 500, limit: 10 })).toBe(0);
      expect(await outbox().prune({ olderThan: T0 + 501, limit: 10 })).toBe(1);
      expect((await to('ep_plain')).map((d) => d.payload)).toEqual(['{"id":2}']);
      expect(await outbox().prune({ olderThan: T0 + 601, limit: 10 })).toBe(1);
      expect(await to('ep_plain')).toEqual([]);
    });

    describe.skipIf(!withParkedLimit)('the bound per endpoint', () => {
      it('drops the oldest parked messages past the bound and counts them on the endpoint, until the next disable', async () => {
        const bounded = await withParkedLimit!(3);
        await ordered(bounded);
        await plain(bounded);
        await disable('ep_ordered', T0, bounded);
        for (let id = 1n; id <= 5n; id++) await create(id, T0 + Number(id), bounded);
        expect((await to('ep_ordered', bounded)).map((d) => `${d.payload}:${d.status}`)).toEqual(['{"id":3}:parked', '{"id":4}:parked', '{"id":5}:parked']);
        expect(await bounded.endpoints.get('acme', 'ep_ordered')).toMatchObject({ status: 'disabled', parkedDropped: 2 });
        expect((await bounded.endpoints.find('ep_ordered'))!.endpoint).toMatchObject({ parkedDropped: 2 });
        expect((await bounded.endpoints.list('acme', { limit: 10 })).map((e) => e.parkedDropped)).toEqual([2, undefined]);
        expect(await bounded.endpoints.get('acme', 'ep_plain')).not.toHaveProperty('parkedDropped');
        // The pending backlog of the other endpoint is not bounded.
        expect(await to('ep_plain', bounded)).toHaveLength(5);

        await bounded.endpoints.setStatus('ep_ordered', 'enabled', undefined, T0 + 100);
        expect((await to('ep_ordered', bounded)).filter((d) => d.status === 'pending')).toHaveLength(3);
        expect(await bounded.endpoints.get('acme', 'ep_ordered')).toMatchObject({ parkedDropped: 2 });
        // A new disable starts counting again, and parks what was pending within the bound.
        await create(6n, T0 + 101, bounded);
        await disable('ep_ordered', T0 + 200, bounded);
        const after = await to('ep_ordered', bounded);
        expect(after.filter((d) => d.status === 'parked').map((d) => d.payload)).toEqual(['{"id":4}', '{"id":5}', '{"id":6}']);
        expect(await bounded.endpoints.get('acme', 'ep_ordered')).toMatchObject({ parkedDropped: 1 });
      });

      it('keeps none under a bound of 0, counting each as dropped', async () => {
        const bounded = await withParkedLimit!(0);
        await plain(bounded);
        await disable('ep_plain', T0, bounded);
        await create(1n, T0 + 1, bounded);
        await create(2n, T0 + 2, bounded);
        expect(await to('ep_plain', bounded)).toEqual([]);
        expect(await bounded.endpoints.get('acme', 'ep_plain')).toMatchObject({ parkedDropped: 2 });
        await bounded.endpoints.setStatus('ep_plain', 'enabled', undefined, T0 + 10);
        await create(3n, T0 + 11, bounded);
        expect((await to('ep_plain', bounded)).map((d) => d.status)).toEqual(['pending']);
      });
    });
  });
}
