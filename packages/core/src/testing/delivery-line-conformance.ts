import { describe, expect, it } from 'vitest';
import type { Storage } from '../ports/storage.js';
import type { AttemptOutcome, Delivery } from '../ports/webhook-outbox.js';
import { ENDPOINT_DELETED_ERROR } from '../webhooks/endpoints/webhook-endpoint.js';
import { delivery, plant } from './storage-fixtures.js';
import { newEndpoint } from './webhook-endpoint-conformance.js';

const T0 = 1_700_000_000_000;
const LEASE_MS = 1_000;

/** Ordered delivery per plant (`ordering: 'plant'` endpoints): the `orderingKey` lines of `WebhookOutbox` and the fan-out that fills them. */
export function describeDeliveryLineConformance(storage: () => Storage): void {
  const outbox = () => storage().outbox;
  const both = ['plant.created', 'plant.deleted'] as const;
  const ordered = () => storage().endpoints.create(newEndpoint('ep_ordered', { eventTypes: [...both], ordering: 'plant' }), 50);
  const unordered = () => storage().endpoints.create(newEndpoint('ep_plain', { eventTypes: [...both] }), 50);
  const create = (id: bigint, at: number) =>
    storage().plants.create('acme', plant(id, `p${id}`), [], { eventType: 'plant.created', payload: `{"id":${id}}`, createdAt: at });
  const remove = (id: bigint, at: number) => storage().plants.delete('acme', id, { eventType: 'plant.deleted', payload: `{"id":${id}}`, createdAt: at });
  const to = async (endpointId: string): Promise<Delivery[]> => (await outbox().list({ endpointId, limit: 100 }))!.reverse();
  /** `<event> <payload id>` of each delivery claimed, in claim order. */
  const claim = async (owner: string, now: number) =>
    (await outbox().claimDue({ owner, now, leaseMs: LEASE_MS, limit: 50 })).map((d) => `${d.endpointId} ${d.eventType} ${d.payload}`);
  const end = (id: string, owner: string, at: number, outcome: AttemptOutcome) =>
    outbox().recordAttempt(id, owner, { at, durationMs: 5, statusCode: outcome.status === 'delivered' ? 200 : 500 }, outcome);

  describe('ordered delivery per plant', () => {
    it("stores an endpoint's ordering: none unless given, changed by an update", async () => {
      expect(await ordered()).toMatchObject({ ordering: 'plant' });
      expect(await unordered()).toMatchObject({ ordering: 'none' });
      expect(await storage().endpoints.update('acme', 'ep_plain', { ordering: 'plant', updatedAt: T0 + 1 })).toMatchObject({ ordering: 'plant' });
      expect(await storage().endpoints.update('acme', 'ep_ordered', { description: 'x', updatedAt: T0 + 1 })).toMatchObject({ ordering: 'plant' });
      expect((await storage().endpoints.find('ep_plain'))?.endpoint).toMatchObject({ ordering: 'plant' });
    });

    it("holds a plant's later message while its earlier one is pending, retries included; other plants and unordered endpoints go on", async () => {
      await ordered();
      await unordered();
      await create(1n, T0);
      await create(2n, T0 + 1);
      await remove(1n, T0 + 2);
      const [created1, created2, deleted1] = await to('ep_ordered');
      expect(deleted1).toMatchObject({ eventType: 'plant.deleted', orderingKey: '1', status: 'pending', attemptCount: 0 });
      expect(deleted1).not.toHaveProperty('nextAttemptAt');
      expect(created1).toMatchObject({ orderingKey: '1', nextAttemptAt: T0 });
      expect(created2).toMatchObject({ orderingKey: '2', nextAttemptAt: T0 + 1 });
      expect((await to('ep_plain')).map((d) => d.nextAttemptAt)).toEqual([T0, T0 + 1, T0 + 2]);
      expect(await outbox().pendingStats()).toEqual({ count: 6, oldestCreatedAt: T0 });

      expect((await claim('a', T0 + 10)).sort()).toEqual([
        'ep_ordered plant.created {"id":1}',
        'ep_ordered plant.created {"id":2}',
        'ep_plain plant.created {"id":1}',
        'ep_plain plant.created {"id":2}',
        'ep_plain plant.deleted {"id":1}',
      ]);
      // A retry keeps the line held: neither a claim nor the next due time sees the held message.
      expect(await end(created1!.id, 'a', T0 + 10, { status: 'pending', nextAttemptAt: T0 + 100 })).toBe(true);
      expect(await end(created2!.id, 'a', T0 + 10, { status: 'delivered' })).toBe(true);
      expect(await claim('a', T0 + 50)).toEqual([]);
      expect(await outbox().waitingSince(T0 + 50)).toEqual(new Map());
      expect(await outbox().nextDueAt()).toBe(T0 + 100);
      expect(await outbox().get(deleted1!.id)).not.toHaveProperty('nextAttemptAt');

      expect(await claim('b', T0 + 100)).toEqual(['ep_ordered plant.created {"id":1}']);
      expect(await end(created1!.id, 'b', T0 + 100, { status: 'delivered' })).toBe(true);
      // Due when the one before it ended.
      expect(await outbox().get(deleted1!.id)).toMatchObject({ status: 'pending', nextAttemptAt: T0 + 105 });
      expect(await outbox().nextDueAt()).toBe(T0 + 105);
      expect(await claim('b', T0 + 105)).toEqual(['ep_ordered plant.deleted {"id":1}']);
    });

    it('names the message each held one waits for (the one just before it in its line), in a read and a listing, until it is due', async () => {
      await ordered();
      await create(1n, T0);
      await remove(1n, T0 + 1);
      await create(1n, T0 + 2);
      await create(2n, T0 + 3);
      const [first, second, third, other] = await to('ep_ordered');
      expect([first, second, third, other].map((d) => d!.waitingBehind)).toEqual([undefined, first!.id, second!.id, undefined]);
      expect(first).not.toHaveProperty('waitingBehind');
      expect(await outbox().get(third!.id)).toMatchObject({ waitingBehind: second!.id });
      // A page of the listing: each held one still names its line's earlier message, though that one is not on the page.
      const page = await outbox().list({ endpointId: 'ep_ordered', status: 'pending', eventType: 'plant.created', limit: 2 });
      expect(page!.map((d) => [d.id, d.waitingBehind])).toEqual([
        [other!.id, undefined],
        [third!.id, second!.id],
      ]);

      expect(await claim('a', T0 + 10)).toHaveLength(2);
      await end(first!.id, 'a', T0 + 10, { status: 'delivered' });
      expect(await outbox().get(first!.id)).not.toHaveProperty('waitingBehind');
      expect(await outbox().get(second!.id)).not.toHaveProperty('waitingBehind');
      expect(await outbox().get(third!.id)).toMatchObject({ waitingBehind: second!.id });
      // Requeued, a failed one joins the back of its line: behind the last one pending.
      expect(await claim('a', T0 + 20)).toEqual(['ep_ordered plant.deleted {"id":1}']);
      await end(second!.id, 'a', T0 + 20, { status: 'failed' });
      expect(await outbox().get(third!.id)).not.toHaveProperty('waitingBehind');
      expect(await outbox().requeue({ id: second!.id, from: 'failed' }, T0 + 30)).toBe(1);
      expect(await outbox().get(second!.id)).toMatchObject({ status: 'pending', waitingBehind: third!.id });
    });

    it('releases the next message when the one before it fails for good, not when an attempt is interrupted or the lease runs out', async () => {
      await ordered();
      await create(1n, T0);
      await remove(1n, T0 + 1);
      await create(1n, T0 + 2);
      const [first, second, third] = await to('ep_ordered');
      expect(await claim('a', T0 + 10)).toEqual(['ep_ordered plant.created {"id":1}']);
      expect(await end(first!.id, 'a', T0 + 10, { status: 'interrupted' })).toBe(true);
      // A dispatcher killed mid-attempt: its lease runs out and the same message is claimed again, never the next.
      expect(await claim('b', T0 + 20)).toEqual(['ep_ordered plant.created {"id":1}']);
      expect(await claim('c', T0 + 20 + LEASE_MS)).toEqual(['ep_ordered plant.created {"id":1}']);
      expect(await end(first!.id, 'c', T0 + 2000, { status: 'failed' })).toBe(true);
      expect(await outbox().get(second!.id)).toMatchObject({ nextAttemptAt: T0 + 2005 });
      expect(await outbox().get(third!.id)).not.toHaveProperty('nextAttemptAt');
      expect(await claim('c', T0 + 3000)).toEqual(['ep_ordered plant.deleted {"id":1}']);
      expect(await end(second!.id, 'c', T0 + 3000, { status: 'delivered' })).toBe(true);
      expect(await claim('c', T0 + 4000)).toEqual(['ep_ordered plant.created {"id":1}']);
    });

    it('requeues and recovers at the back of the line; a resend of a held message keeps its place', async () => {
      await ordered();
      await create(1n, T0);
      await create(2n, T0 + 1);
      await claim('a', T0 + 10);
      const [created1, created2] = await to('ep_ordered');
      await end(created1!.id, 'a', T0 + 10, { status: 'failed' });
      await end(created2!.id, 'a', T0 + 10, { status: 'failed' });
      await remove(1n, T0 + 20);
      const deleted1 = (await to('ep_ordered'))[2]!;
      expect(deleted1).toMatchObject({ nextAttemptAt: T0 + 20 });
      // The failed plant.created joins behind the plant.deleted queued since.
      expect(await outbox().requeue({ id: created1!.id, from: 'failed' }, T0 + 30)).toBe(1);
      expect(await outbox().get(created1!.id)).toMatchObject({ status: 'pending' });
      expect(await outbox().get(created1!.id)).not.toHaveProperty('nextAttemptAt');
      // A resend of a held message keeps it held; of the due one, makes it due now.
      expect(await outbox().requeue({ id: created1!.id, from: 'any' }, T0 + 40)).toBe(1);
      expect(await outbox().get(created1!.id)).not.toHaveProperty('nextAttemptAt');
      expect(await outbox().requeue({ id: deleted1.id, from: 'any' }, T0 + 40)).toBe(1);
      expect(await outbox().get(deleted1.id)).toMatchObject({ nextAttemptAt: T0 + 40 });
      expect(await claim('a', T0 + 40)).toEqual(['ep_ordered plant.deleted {"id":1}']);
      await end(deleted1.id, 'a', T0 + 40, { status: 'delivered' });
      expect(await claim('a', T0 + 50)).toEqual(['ep_ordered plant.created {"id":1}']);
      await end(created1!.id, 'a', T0 + 50, { status: 'delivered' });

      // A resend of a delivered message while its line is busy waits too.
      await remove(2n, T0 + 60);
      expect(await outbox().requeue({ id: deleted1.id, from: 'any' }, T0 + 60)).toBe(1);
      await create(1n, T0 + 61);
      expect((await claim('a', T0 + 70)).sort()).toEqual(['ep_ordered plant.deleted {"id":1}', 'ep_ordered plant.deleted {"id":2}']);

      // A recovery queues a failed one at the back of its line.
      expect(await outbox().requeue({ endpointId: 'ep_ordered', since: T0 }, T0 + 80)).toBe(1);
      expect(await outbox().get(created2!.id)).toMatchObject({ status: 'pending' });
      expect(await outbox().get(created2!.id)).not.toHaveProperty('nextAttemptAt');
      const deleted2 = (await to('ep_ordered')).find((d) => d.eventType === 'plant.deleted' && d.payload === '{"id":2}')!;
      await end(deleted2.id, 'a', T0 + 80, { status: 'delivered' });
      expect(await claim('a', T0 + 90)).toEqual(['ep_ordered plant.created {"id":2}']);
    });

    it('recovers a line of failed messages in the order they were first queued', async () => {
      await ordered();
      await create(1n, T0);
      await remove(1n, T0 + 1);
      await create(1n, T0 + 2);
      await storage().endpoints.setStatus('ep_ordered', 'disabled', 'x', T0 + 10);
      await storage().endpoints.setStatus('ep_ordered', 'enabled', undefined, T0 + 20, { action: 'discard' });
      expect((await to('ep_ordered')).map((d) => d.status)).toEqual(['failed', 'failed', 'failed']);
      expect(await outbox().requeue({ endpointId: 'ep_ordered', since: T0 }, T0 + 30)).toBe(3);
      const events: string[] = [];
      for (let now = T0 + 30; events.length < 3 && now < T0 + 100; now += 10) {
        const claimed = await outbox().claimDue({ owner: 'a', now, leaseMs: LEASE_MS, limit: 10 });
        expect(claimed.length).toBeLessThanOrEqual(1);
        for (const d of claimed) {
          events.push(d.eventType);
          await end(d.id, 'a', now, { status: 'delivered' });
        }
      }
      expect(events).toEqual(['plant.created', 'plant.deleted', 'plant.created']);
    });

    it('an endpoint switched to ordering still releases the lines it has; one switched off holds no new message', async () => {
      await ordered();
      await create(1n, T0);
      await remove(1n, T0 + 1);
      await storage().endpoints.update('acme', 'ep_ordered', { ordering: 'none', updatedAt: T0 + 2 });
      await create(1n, T0 + 3);
      const [first, held, unkeyed] = await to('ep_ordered');
      expect(held).not.toHaveProperty('nextAttemptAt');
      expect(unkeyed).toMatchObject({ nextAttemptAt: T0 + 3 });
      expect(unkeyed).not.toHaveProperty('orderingKey');
      await claim('a', T0 + 5);
      await end(first!.id, 'a', T0 + 5, { status: 'delivered' });
      expect(await claim('a', T0 + 10)).toEqual(['ep_ordered plant.deleted {"id":1}']);
    });

    it('ends every line of a deleted endpoint, held messages included, leaves those in flight to their attempt, and a requeue after it joins no line left behind', async () => {
      await ordered();
      await create(1n, T0);
      await remove(1n, T0 + 1);
      await create(2n, T0 + 2);
      expect(await claim('a', T0 + 5)).toHaveLength(2);
      expect(await storage().endpoints.delete('acme', 'ep_ordered', T0 + 10)).toBe(true);
      const ended = await to('ep_ordered');
      // In flight: pending until their attempt is recorded, so neither is sent again, nor after the one behind it, while it runs.
      expect(ended.map((d) => d.status)).toEqual(['pending', 'failed', 'pending']);
      expect(ended[1]!.attempts.at(-1)?.error).toBe(ENDPOINT_DELETED_ERROR);
      expect(await outbox().pendingStats()).toMatchObject({ count: 2 });
      expect(await end(ended[0]!.id, 'a', T0 + 20, { status: 'delivered' })).toBe(true);
      expect(await end(ended[2]!.id, 'a', T0 + 20, { status: 'failed' })).toBe(true);
      expect(await outbox().pendingStats()).toEqual({ count: 0 });
      expect(await outbox().requeue({ id: ended[1]!.id, from: 'failed' }, T0 + 30)).toBe(1);
      expect(await outbox().get(ended[1]!.id)).toMatchObject({ status: 'pending', nextAttemptAt: T0 + 30 });
    });

    it('queues an enqueued message with an ordering key behind its line; disabling the endpoint parks the held ones too', async () => {
      await ordered();
      await create(7n, T0);
      await outbox().enqueue(delivery('msg_enqueued', { tenant: 'acme', endpointId: 'ep_ordered', orderingKey: '7', createdAt: T0 + 1 }));
      expect(await outbox().get('msg_enqueued')).toMatchObject({ status: 'pending', orderingKey: '7' });
      expect(await outbox().get('msg_enqueued')).not.toHaveProperty('nextAttemptAt');
      await outbox().enqueue(delivery('msg_other', { tenant: 'acme', endpointId: 'ep_ordered', orderingKey: '8', createdAt: T0 + 2 }));
      expect(await outbox().get('msg_other')).toMatchObject({ nextAttemptAt: T0 + 2 });
      await storage().endpoints.setStatus('ep_ordered', 'disabled', 'x', T0 + 10);
      expect((await to('ep_ordered')).map((d) => d.status)).toEqual(['parked', 'parked', 'parked']);
      expect(await outbox().pendingStats()).toEqual({ count: 0 });
    });
  });
}
