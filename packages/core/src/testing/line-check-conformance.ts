import { describe, expect, it } from 'vitest';
import type { Storage } from '../ports/storage.js';
import type { Delivery } from '../ports/webhook-outbox.js';
import { plant } from './storage-fixtures.js';
import { newEndpoint } from './webhook-endpoint-conformance.js';

const T0 = 1_700_000_000_000;

/**
 * Takes the due time from a pending delivery, as a lost update would: its line (or, in no line, the message itself) can then never
 * become due. Only a test may do this to a storage, so the adapter's test file supplies it.
 */
export type DropDueTime = (storage: Storage, deliveryId: string) => Promise<void>;

/** `WebhookOutbox.stuckLines` and `releaseStuckLine`: nothing healthy is reported or released; a broken line is found and released once. */
export function describeLineCheckConformance(storage: () => Storage, dropDueTime: DropDueTime | undefined): void {
  const outbox = () => storage().outbox;
  const both = ['plant.created', 'plant.deleted'] as const;
  const endpoints = async () => {
    await storage().endpoints.create(newEndpoint('ep_ordered', { eventTypes: [...both], ordering: 'plant' }), 50);
    await storage().endpoints.create(newEndpoint('ep_plain', { eventTypes: [...both] }), 50);
  };
  const create = (id: bigint, at: number) =>
    storage().plants.create('acme', plant(id, `p${id}`), [], { eventType: 'plant.created', payload: `{"id":${id}}`, createdAt: at });
  const remove = (id: bigint, at: number) => storage().plants.delete('acme', id, { eventType: 'plant.deleted', payload: `{"id":${id}}`, createdAt: at });
  const to = async (endpointId: string): Promise<Delivery[]> => (await outbox().list({ endpointId, limit: 100 }))!.reverse();
  const dueTimes = async (endpointId: string) => (await to(endpointId)).map((d) => d.nextAttemptAt);

  describe('stuck delivery lines', () => {
    it('reports no line while each has a message due, retrying or in flight, and releases none of them', async () => {
      await endpoints();
      for (const id of [1n, 2n, 3n]) {
        await create(id, T0 + Number(id));
        await remove(id, T0 + 10 + Number(id));
      }
      // Plant 1's head in flight, plant 2's retrying later, plant 3's due.
      const claimed = await outbox().claimDue({ owner: 'a', now: T0 + 20, leaseMs: 60_000, limit: 1, skipEndpoints: ['ep_plain'] });
      expect(claimed.map((d) => d.payload)).toEqual(['{"id":1}']);
      const [, created2] = await to('ep_ordered');
      expect(await outbox().claimDue({ owner: 'b', now: T0 + 20, leaseMs: 60_000, limit: 1, skipEndpoints: ['ep_plain'] })).toMatchObject([
        { id: created2!.id },
      ]);
      await outbox().recordAttempt(created2!.id, 'b', { at: T0 + 20, durationMs: 1, statusCode: 500 }, { status: 'pending', nextAttemptAt: T0 + 99_000 });

      expect(await outbox().stuckLines(100)).toEqual([]);
      const before = await dueTimes('ep_ordered');
      expect(before.filter((due) => due === undefined)).toHaveLength(3);
      for (const orderingKey of ['1', '2', '3', '4']) expect(await outbox().releaseStuckLine({ endpointId: 'ep_ordered', orderingKey }, T0 + 30)).toBe(0);
      expect(await outbox().releaseStuckLine({ endpointId: 'ep_plain' }, T0 + 30)).toBe(0);
      expect(await outbox().releaseStuckLine({ endpointId: 'ep_nope', orderingKey: '1' }, T0 + 30)).toBe(0);
      expect(await dueTimes('ep_ordered')).toEqual(before);
    });

    describe.skipIf(!dropDueTime)('with a line broken by hand (skipped: the adapter offers no way to break one)', () => {
      it("finds a line with no head and a message of no line without a due time, counts them, and releases each line's first once", async () => {
        await endpoints();
        await create(1n, T0);
        await remove(1n, T0 + 1);
        await create(1n, T0 + 2);
        await create(2n, T0 + 3);
        const [head, second, third] = await to('ep_ordered');
        const plain = (await to('ep_plain')).find((d) => d.payload === '{"id":2}')!;
        await dropDueTime!(storage(), head!.id);
        await dropDueTime!(storage(), plain.id);

        expect(await outbox().stuckLines(100)).toEqual([
          { endpointId: 'ep_ordered', tenant: 'acme', orderingKey: '1', waiting: 3, oldestCreatedAt: T0 },
          { endpointId: 'ep_plain', tenant: 'acme', waiting: 1, oldestCreatedAt: T0 + 3 },
        ]);
        expect(await outbox().stuckLines(1)).toHaveLength(1);

        expect(await outbox().releaseStuckLine({ endpointId: 'ep_ordered', orderingKey: '1' }, T0 + 50)).toBe(1);
        expect(await outbox().releaseStuckLine({ endpointId: 'ep_ordered', orderingKey: '1' }, T0 + 60)).toBe(0);
        expect(await outbox().get(head!.id)).toMatchObject({ status: 'pending', nextAttemptAt: T0 + 50 });
        for (const held of [second!, third!]) expect(await outbox().get(held.id)).not.toHaveProperty('nextAttemptAt');
        expect(await outbox().releaseStuckLine({ endpointId: 'ep_plain' }, T0 + 50)).toBe(1);
        expect(await outbox().get(plain.id)).toMatchObject({ nextAttemptAt: T0 + 50 });
        expect(await outbox().stuckLines(100)).toEqual([]);

        // The released line drains in order.
        const events: string[] = [];
        for (let now = T0 + 100; events.length < 3 && now < T0 + 200; now += 10) {
          for (const d of await outbox().claimDue({ owner: 'a', now, leaseMs: 1_000, limit: 10 })) {
            if (d.endpointId !== 'ep_ordered' || d.orderingKey !== '1') continue;
            events.push(d.eventType);
            await outbox().recordAttempt(d.id, 'a', { at: now, durationMs: 1, statusCode: 200 }, { status: 'delivered' });
          }
        }
        expect(events).toEqual(['plant.created', 'plant.deleted', 'plant.created']);
      });
    });
  });
}
