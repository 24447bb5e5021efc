import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StorageError } from '../errors.js';
import type { Storage } from '../ports/storage.js';
import { describeDeliveryLineConformance } from './delivery-line-conformance.js';
import { describeLineCheckConformance, type DropDueTime } from './line-check-conformance.js';
import { describeParkedDeliveryConformance, type OpenWithParkedLimit } from './parked-delivery-conformance.js';
import { describePlantRepositoryConformance } from './plant-repository-conformance.js';
import { describePortalLinkConformance, newPortalLink } from './portal-link-conformance.js';
import { describeWebhookEndpointConformance, newEndpoint } from './webhook-endpoint-conformance.js';
import { describeWebhookOutboxConformance } from './webhook-outbox-conformance.js';
import { delivery, plant } from './storage-fixtures.js';

/** What an adapter can do beyond the port's contract; the suite skips (with a reason) what is missing. */
export interface StorageCapabilities {
  /** Data survives `close()`: `reopen()` opens again the storage most recently returned by `create()`. */
  readonly persistent?: { reopen(): Promise<Storage> };
  /** Takes the due time from a pending delivery behind the port's back, so the line check has a broken line to find. */
  readonly dropDueTime?: DropDueTime;
  /** Opens a new, empty storage with the `parkedLimit` option, so the bound on parked messages can be tested at a few messages. */
  readonly parkedLimit?: OpenWithParkedLimit;
}

export interface StorageConformanceOptions {
  /** A new, empty storage. Called before every test; the suite closes it after. */
  create(): Promise<Storage>;
  readonly capabilities?: StorageCapabilities;
}

/** The storage conformance suite every adapter runs, so they all honour the ports' contracts alike; a fresh storage per test, closed after. */
export function describeStorageConformance(name: string, options: StorageConformanceOptions): void {
  describe(`${name} storage conformance`, () => {
    let current: Storage | undefined;
    const opened: Storage[] = [];
    const open = async (make: () => Promise<Storage>): Promise<Storage> => {
      const storage = await make();
      opened.push(storage);
      return storage;
    };
    const storage = (): Storage => current!;

    beforeEach(async () => {
      current = await open(() => options.create());
    });
    afterEach(async () => {
      // close() is idempotent, so storages a test already closed are fine here.
      await Promise.all(opened.splice(0).map((opened) => opened.close()));
      current = undefined;
    });

    describePlantRepositoryConformance(storage);
    describeWebhookOutboxConformance(storage);
    describeWebhookEndpointConformance(storage);
    describeDeliveryLineConformance(storage);
    describeLineCheckConformance(storage, options.capabilities?.dropDueTime);
    const withParkedLimit = options.capabilities?.parkedLimit;
    describeParkedDeliveryConformance(storage, withParkedLimit && ((limit) => open(() => withParkedLimit(limit))));
    describePortalLinkConformance(storage);

    describe('life cycle', () => {
      it('ping resolves while open', async () => {
        await expect(storage().ping()).resolves.toBeUndefined();
      });

      it('close is idempotent and every member rejects with a StorageError after it', async () => {
        const closed = storage();
        await closed.close();
        await closed.close();
        const calls: Array<() => Promise<unknown>> = [
          () => closed.ping(),
          () => closed.plants.create('t', plant(1n, 'a'), []),
          () => closed.plants.get('t', 1n),
          () => closed.plants.list('t', { limit: 10 }),
          () => closed.plants.idAtOffset('t', { offset: 0 }),
          () => closed.plants.delete('t', 1n),
          () => closed.outbox.claimDue({ owner: 'o', now: 0, leaseMs: 1, limit: 1 }),
          () => closed.outbox.recordAttempt('d', 'o', { at: 0, durationMs: 1 }, { status: 'delivered' }),
          () => closed.outbox.release(['d'], 'o'),
          () => closed.outbox.nextDueAt(),
          () => closed.outbox.pendingStats(),
          () => closed.outbox.get('d'),
          () => closed.outbox.list(),
          () => closed.outbox.list({ tenant: 't', limit: 1 }),
          () => closed.outbox.requeue({ id: 'd', from: 'failed' }, 0),
          () => closed.outbox.requeue({ id: 'd', from: 'any' }, 0),
          () => closed.outbox.requeue({ endpointId: 'ep_a', since: 0 }, 0),
          () => closed.outbox.endpointAttemptStats('ep_a', [0]),
          () => closed.outbox.enqueue(delivery('d', { endpointId: 'ep_a' })),
          () => closed.outbox.stuckLines(1),
          () => closed.outbox.releaseStuckLine({ endpointId: 'ep_a', orderingKey: '1' }, 0),
          () => closed.endpoints.create(newEndpoint('ep_a'), 50),
          () => closed.endpoints.get('t', 'ep_a'),
          () => closed.endpoints.list('t', { limit: 1 }),
          () => closed.endpoints.update('t', 'ep_a', { updatedAt: 0 }),
          () => closed.endpoints.delete('t', 'ep_a', 0),
          () => closed.endpoints.secrets('t', 'ep_a'),
          () => closed.endpoints.rotateSecret('t', 'ep_a', 's', 0, 0),
          () => closed.endpoints.find('ep_a'),
          () => closed.endpoints.listAll({ limit: 1 }),
          () => closed.endpoints.setStatus('ep_a', 'enabled', undefined, 0),
          () => closed.endpoints.noteAttempt('ep_a', { at: 0, succeeded: true, exhausted: false }),
          () => closed.portalLinks.create(newPortalLink('link-aaaaaaaaaaa')),
          () => closed.portalLinks.find('link-aaaaaaaaaaa'),
          () => closed.portalLinks.revoke('link-aaaaaaaaaaa', 0),
          () => closed.portalLinks.list(),
        ];
        for (const call of calls) await expect(call()).rejects.toBeInstanceOf(StorageError);
      });

      const persistent = options.capabilities?.persistent;
      describe.skipIf(!persistent)('persistence (skipped: the adapter keeps data only in process memory)', () => {
        it('finds plants, pending deliveries and attempt logs again after close and reopen', async () => {
          const before = storage();
          await before.plants.create('t', plant(9223372036854775807n, 'max', 'x'), [
            delivery('d1', { createdAt: 1_700_000_000_000 }),
            delivery('d2', { createdAt: 1_700_000_000_001 }),
          ]);
          await before.plants.create('t', plant(-9223372036854775808n, 'min'), []);
          await before.outbox.claimDue({ owner: 'a', now: 1_700_000_000_000, leaseMs: 1000, limit: 1 });
          const attempt = { at: 1_700_000_000_000, durationMs: 12, statusCode: 500 };
          await before.outbox.recordAttempt('d1', 'a', attempt, { status: 'pending', nextAttemptAt: 1_700_000_005_000 });
          await before.close();

          const after = await open(() => persistent!.reopen());
          expect(await after.plants.list('t', { limit: 10 })).toEqual([
            { id: -9223372036854775808n, name: 'min' },
            { id: 9223372036854775807n, name: 'max', tag: 'x' },
          ]);
          expect((await after.plants.get('t', 9223372036854775807n))?.id).toBe(9223372036854775807n);
          expect(await after.outbox.get('d1')).toMatchObject({ status: 'pending', attemptCount: 1, nextAttemptAt: 1_700_000_005_000, attempts: [attempt] });
          expect(await after.outbox.nextDueAt()).toBe(1_700_000_000_001);
          const claimed = await after.outbox.claimDue({ owner: 'b', now: 1_700_000_010_000, leaseMs: 1000, limit: 10 });
          expect(claimed.map((d) => d.id)).toEqual(['d2', 'd1']);
        });

        it('holds the endpoint cap of a tenant when two storages on the same data create at once', async () => {
          const other = await open(() => persistent!.reopen());
          const both = [storage(), other];
          const ids = Array.from({ length: 24 }, (_, index) => `ep_race${String(index).padStart(2, '0')}`);
          const results = await Promise.all(ids.map((id, index) => both[index % 2]!.endpoints.create(newEndpoint(id), 5)));
          expect(results.filter((result) => result !== undefined)).toHaveLength(5);
          expect(await storage().endpoints.list('acme', { limit: 100 })).toHaveLength(5);
        });
      });
    });
  });
}
