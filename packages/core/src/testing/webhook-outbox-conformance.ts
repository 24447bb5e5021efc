import { describe, expect, it } from 'vitest';
import type { Storage } from '../ports/storage.js';
import type { AttemptOutcome, ClaimDueOptions, ListDeliveriesQuery, NewDelivery } from '../ports/webhook-outbox.js';
import { delivery, plant } from './storage-fixtures.js';
import { newEndpoint } from './webhook-endpoint-conformance.js';

const T0 = 1_700_000_000_000;

/** `WebhookOutbox` contract; `storage()` is the fresh storage of the running test. */
export function describeWebhookOutboxConformance(storage: () => Storage): void {
  const outbox = () => storage().outbox;
  let nextPlantId = 0n;
  /** Deliveries enter the outbox only with a plant, so queue them under a fresh one. */
  const queue = async (...deliveries: NewDelivery[]) => {
    await storage().plants.create('t', plant(nextPlantId++, 'p'), deliveries);
  };
  const claim = (owner: string, now: number, extra: Partial<ClaimDueOptions> = {}) => outbox().claimDue({ owner, now, leaseMs: 30_000, limit: 10, ...extra });
  const claimIds = async (owner: string, now: number, extra: Partial<ClaimDueOptions> = {}) => (await claim(owner, now, extra)).map((d) => d.id);

  describe('webhook outbox', () => {
    it('queues a delivery as pending, due at its creation time, with no attempts', async () => {
      const queued = delivery('d1', { tenant: 'acme', createdAt: T0 + 1 });
      await queue(queued);
      expect(await outbox().get('d1')).toEqual({ ...queued, status: 'pending', attemptCount: 0, nextAttemptAt: T0 + 1, attempts: [] });
      expect(await outbox().get('unknown')).toBeUndefined();
    });

    it('claims due pending deliveries earliest due first, up to the limit, with their message and lease ([] when none)', async () => {
      expect(await claim('a', T0)).toEqual([]);
      await queue(delivery('late', { createdAt: T0 + 30 }), delivery('early', { createdAt: T0 + 10 }));
      await queue(delivery('middle', { createdAt: T0 + 20 }), delivery('future', { createdAt: T0 + 1000 }));
      const claimed = await claim('a', T0 + 100, { limit: 2, leaseMs: 5000 });
      expect(claimed).toEqual([
        { ...delivery('early', { createdAt: T0 + 10 }), attemptCount: 0, leaseExpiresAt: T0 + 5100 },
        { ...delivery('middle', { createdAt: T0 + 20 }), attemptCount: 0, leaseExpiresAt: T0 + 5100 },
      ]);
      expect(await claimIds('a', T0 + 100)).toEqual(['late']);
      // Not yet due, then due exactly at its time.
      expect(await claimIds('a', T0 + 999)).toEqual([]);
      expect(await claimIds('a', T0 + 1000)).toEqual(['future']);
      expect(await claimIds('a', T0 + 1000)).toEqual([]);
    });

    it('keeps claiming earliest due first, then oldest, after retries are rescheduled and failures re-queued', async () => {
      await queue(...['d1', 'd2', 'd3', 'd4'].map((id, index) => delivery(id, { createdAt: T0 + index })));
      expect(await claimIds('a', T0 + 10)).toEqual(['d1', 'd2', 'd3', 'd4']);
      const attempt = { at: T0 + 10, durationMs: 1, statusCode: 500 };
      await outbox().recordAttempt('d1', 'a', attempt, { status: 'pending', nextAttemptAt: T0 + 25 });
      await outbox().recordAttempt('d2', 'a', attempt, { status: 'failed' });
      await outbox().recordAttempt('d4', 'a', attempt, { status: 'pending', nextAttemptAt: T0 + 20 });
      await outbox().recordAttempt('d3', 'a', attempt, { status: 'pending', nextAttemptAt: T0 + 20 });
      expect(await outbox().requeue({ id: 'd2', from: 'failed' }, T0 + 20)).toBe(1);
      expect(await outbox().nextDueAt()).toBe(T0 + 20);
      expect(await claimIds('b', T0 + 19)).toEqual([]);
      expect(await claimIds('b', T0 + 24, { limit: 2 })).toEqual(['d2', 'd3']);
      expect(await claimIds('b', T0 + 30)).toEqual(['d4', 'd1']);
    });

    it('tells, per endpoint, since when its oldest due delivery that no one holds has waited', async () => {
      expect(await outbox().waitingSince(T0)).toEqual(new Map());
      await queue(
        delivery('a1', { endpointId: 'sub_a', createdAt: T0 + 1 }),
        delivery('a2', { endpointId: 'sub_a', createdAt: T0 + 2 }),
        delivery('b1', { endpointId: 'sub_b', createdAt: T0 + 3 }),
        delivery('c1', { endpointId: 'sub_c', createdAt: T0 + 500 }),
      );
      // a1 is leased (in flight): a2 is the one waiting; c1 is not due yet.
      expect(await claimIds('x', T0 + 10, { limit: 1 })).toEqual(['a1']);
      expect(await outbox().waitingSince(T0 + 10)).toEqual(new Map(Object.entries({ sub_a: T0 + 2, sub_b: T0 + 3 })));
      expect(await outbox().waitingSince(T0 + 600)).toEqual(new Map(Object.entries({ sub_a: T0 + 2, sub_b: T0 + 3, sub_c: T0 + 500 })));
    });

    it('claims across endpoints in one order, earliest due then oldest, up to the limit, skipping the endpoints asked', async () => {
      await queue(
        delivery('a1', { endpointId: 'sub_a', createdAt: T0 + 5 }),
        delivery('b1', { endpointId: 'sub_b', createdAt: T0 + 1 }),
        delivery('a2', { endpointId: 'sub_a', createdAt: T0 + 5 }),
        delivery('c1', { endpointId: 'sub_c', createdAt: T0 + 5 }),
        delivery('b2', { endpointId: 'sub_b', createdAt: T0 + 9 }),
      );
      expect(await claimIds('a', T0 + 10, { limit: 3 })).toEqual(['b1', 'a1', 'a2']);
      expect(await claimIds('a', T0 + 10, { limit: 3, skipEndpoints: ['sub_b', 'ep_none'] })).toEqual(['c1']);
      expect(await claimIds('a', T0 + 10, { limit: 3, skipEndpoints: [] })).toEqual(['b2']);
    });

    it('never hands one delivery to two concurrent claimers', async () => {
      const all = Array.from({ length: 20 }, (_, i) => delivery(`d${String(i).padStart(2, '0')}`, { createdAt: T0 + i }));
      await queue(...all.slice(0, 10));
      await queue(...all.slice(10));
      const [a, b] = await Promise.all([claimIds('a', T0 + 100, { limit: 12 }), claimIds('b', T0 + 100, { limit: 12 })]);
      expect(a.filter((id) => b.includes(id))).toEqual([]);
      expect([...a, ...b].sort()).toEqual(all.map((d) => d.id));
      expect(await claimIds('c', T0 + 100)).toEqual([]);
    });

    it('hides a leased delivery until the lease expires, then lets another owner claim it', async () => {
      await queue(delivery('d1', { createdAt: T0 }));
      expect(await claimIds('a', T0, { leaseMs: 1000 })).toEqual(['d1']);
      expect(await claimIds('b', T0 + 999)).toEqual([]);
      const reclaimed = await claim('b', T0 + 1000, { leaseMs: 1000 });
      expect(reclaimed.map((d) => [d.id, d.leaseExpiresAt])).toEqual([['d1', T0 + 2000]]);
      // The first owner lost the lease: its late result is refused.
      expect(await outbox().recordAttempt('d1', 'a', { at: T0, durationMs: 5, statusCode: 200 }, { status: 'delivered' })).toBe(false);
      expect(await outbox().recordAttempt('d1', 'b', { at: T0 + 1000, durationMs: 5, statusCode: 200 }, { status: 'delivered' })).toBe(true);
      expect(await outbox().get('d1')).toMatchObject({ status: 'delivered', attempts: [{ at: T0 + 1000, durationMs: 5, statusCode: 200 }] });
    });

    it('refuses an attempt from a non-owner (or for no lease, or an unknown id) and changes nothing', async () => {
      await queue(delivery('d1', { createdAt: T0 }), delivery('d2', { createdAt: T0 }));
      const attempt = { at: T0, durationMs: 3, statusCode: 200 };
      expect(await outbox().recordAttempt('d2', 'a', attempt, { status: 'delivered' })).toBe(false);
      await claim('a', T0, { limit: 1 });
      expect(await outbox().recordAttempt('d1', 'b', attempt, { status: 'delivered' })).toBe(false);
      expect(await outbox().recordAttempt('nope', 'a', attempt, { status: 'delivered' })).toBe(false);
      expect(await outbox().get('d1')).toMatchObject({ status: 'pending', attemptCount: 0, attempts: [] });
      expect(await outbox().get('d2')).toMatchObject({ status: 'pending', attemptCount: 0, attempts: [] });
      // a still holds d1: b only gets d2.
      expect(await claimIds('b', T0 + 1)).toEqual(['d2']);
    });

    it('records attempts and outcomes: retry later, then delivered', async () => {
      const timedOut = { at: T0, durationMs: 15_000, error: 'timeout after 15000 ms' };
      const answered503 = { at: T0 + 5000, durationMs: 503, statusCode: 503, error: 'status 503' };
      const delivered = { at: T0 + 9000, durationMs: 7, statusCode: 204 };
      await queue(delivery('d1', { createdAt: T0 }));
      await claim('a', T0);
      expect(await outbox().recordAttempt('d1', 'a', timedOut, { status: 'pending', nextAttemptAt: T0 + 5000 })).toBe(true);
      expect(await outbox().get('d1')).toEqual({
        ...delivery('d1', { createdAt: T0 }),
        status: 'pending',
        attemptCount: 1,
        nextAttemptAt: T0 + 5000,
        attempts: [timedOut],
      });
      // The lease was cleared, and the retry is not due before its time.
      expect(await claimIds('b', T0 + 4999)).toEqual([]);
      const [retry] = await claim('b', T0 + 5000);
      expect(retry).toMatchObject({ id: 'd1', attemptCount: 1 });
      expect(await outbox().recordAttempt('d1', 'b', answered503, { status: 'pending', nextAttemptAt: T0 + 9000 })).toBe(true);
      await claim('b', T0 + 9000);
      expect(await outbox().recordAttempt('d1', 'b', delivered, { status: 'delivered' })).toBe(true);
      const done = await outbox().get('d1');
      expect(done).toEqual({ ...delivery('d1', { createdAt: T0 }), status: 'delivered', attemptCount: 3, attempts: [timedOut, answered503, delivered] });
      expect(done).not.toHaveProperty('nextAttemptAt');
      expect(Object.keys(done!.attempts[2]!).sort()).toEqual(['at', 'durationMs', 'statusCode']);
      expect(await claimIds('c', T0 + 100_000)).toEqual([]);
      // Delivered is final: no more attempts are accepted.
      expect(await outbox().recordAttempt('d1', 'b', { at: T0 + 9001, durationMs: 1 }, { status: 'failed' })).toBe(false);
    });

    it('records an interrupted attempt without using up a retry: still pending, due as before, lease ended', async () => {
      await queue(delivery('d1', { createdAt: T0 }), delivery('d2', { createdAt: T0 + 5 }));
      await claim('a', T0 + 10, { limit: 1 });
      const cut = { at: T0 + 10, durationMs: 40, error: 'interrupted: the dispatcher stopped' };
      expect(await outbox().recordAttempt('d1', 'b', cut, { status: 'interrupted' })).toBe(false); // not b's lease
      expect(await outbox().recordAttempt('d1', 'a', cut, { status: 'interrupted' })).toBe(true);
      expect(await outbox().get('d1')).toEqual({
        ...delivery('d1', { createdAt: T0 }),
        status: 'pending',
        attemptCount: 1,
        nextAttemptAt: T0,
        attempts: [{ ...cut, interrupted: true }],
      });
      expect(await outbox().nextDueAt()).toBe(T0);
      // Claimable at once, ahead of later deliveries, and its retry count is untouched.
      const [again, next] = await claim('b', T0 + 60);
      expect(again).toMatchObject({ id: 'd1', attemptCount: 0 });
      expect(next).toMatchObject({ id: 'd2', attemptCount: 0 });
      // `interrupted` comes from the outcome: a caller's flag on another outcome is not stored.
      const flagged = { at: T0 + 60, durationMs: 2, statusCode: 500, interrupted: true as const };
      await outbox().recordAttempt('d1', 'b', flagged, { status: 'pending', nextAttemptAt: T0 + 100 });
      const [, counted] = (await outbox().get('d1'))!.attempts;
      expect(counted).toEqual({ at: T0 + 60, durationMs: 2, statusCode: 500 });
      expect(await claim('c', T0 + 100)).toMatchObject([{ id: 'd1', attemptCount: 1 }]);
      expect((await outbox().get('d1'))!.attemptCount).toBe(2);
    });

    it('records concurrent attempts on different deliveries each on its own terms', async () => {
      const ids = ['c1', 'c2', 'c3', 'c4', 'c5'];
      await queue(...ids.map((id, index) => delivery(id, { createdAt: T0 + index })));
      await claim('a', T0 + 10, { limit: 4 });
      const at = { at: T0 + 10, durationMs: 4 };
      const results = await Promise.all([
        outbox().recordAttempt('c1', 'a', { ...at, statusCode: 200 }, { status: 'delivered' }),
        outbox().recordAttempt('c2', 'a', { ...at, statusCode: 500, error: 'status 500' }, { status: 'pending', nextAttemptAt: T0 + 70 }),
        outbox().recordAttempt('c3', 'a', { ...at, statusCode: 410 }, { status: 'failed' }),
        outbox().recordAttempt('c4', 'b', { ...at, statusCode: 200 }, { status: 'delivered' }), // a holds it
        outbox().recordAttempt('c5', 'a', { ...at, statusCode: 200 }, { status: 'delivered' }), // never claimed
        outbox().recordAttempt('c4', 'a', { ...at, error: 'interrupted: the dispatcher stopped' }, { status: 'interrupted' }),
      ]);
      expect(results).toEqual([true, true, true, false, false, true]);
      expect(await outbox().get('c1')).toMatchObject({ status: 'delivered', attemptCount: 1, attempts: [{ ...at, statusCode: 200 }] });
      expect(await outbox().get('c2')).toMatchObject({
        status: 'pending',
        nextAttemptAt: T0 + 70,
        attempts: [{ ...at, statusCode: 500, error: 'status 500' }],
      });
      expect(await outbox().get('c3')).toMatchObject({ status: 'failed', attempts: [{ ...at, statusCode: 410 }] });
      expect(await outbox().get('c4')).toMatchObject({ status: 'pending', nextAttemptAt: T0 + 3, attempts: [{ ...at, interrupted: true }] });
      expect(await outbox().get('c5')).toMatchObject({ status: 'pending', attemptCount: 0, attempts: [] });
      expect(await claimIds('b', T0 + 20)).toEqual(['c4', 'c5']);
    });

    it("keeps the start of the receiver's answer with each attempt, text as given; absent when there was none", async () => {
      await queue(delivery('d1', { createdAt: T0 }));
      const answer = `{"ok":false,"why":"ünïcödé 🌵"}${'x'.repeat(900)}`;
      await claim('a', T0);
      const expected = [
        { at: T0, durationMs: 5, statusCode: 500, error: 'receiver answered 500', response: answer },
        { at: T0 + 10, durationMs: 5, statusCode: 204 },
      ];
      await outbox().recordAttempt('d1', 'a', expected[0]!, { status: 'pending', nextAttemptAt: T0 + 10 });
      await claim('a', T0 + 10);
      await outbox().recordAttempt('d1', 'a', expected[1]!, { status: 'delivered' });
      expect((await outbox().get('d1'))?.attempts).toEqual(expected);
      expect((await outbox().list())?.[0]?.attempts).toEqual(expected);
    });

    it('stores any answer a receiver sends, what text cannot hold escaped the same way, alongside the attempts recorded with it', async () => {
      await queue(delivery('n1', { createdAt: T0 }), delivery('n2', { createdAt: T0 }), delivery('n3', { createdAt: T0 }));
      await claim('a', T0);
      const at = { at: T0 + 1, durationMs: 2, statusCode: 200 };
      // Recorded together: one answer holding bytes text cannot store must not take the others down with it.
      const results = await Promise.all([
        outbox().recordAttempt('n1', 'a', { ...at, response: 'ok' }, { status: 'delivered' }),
        outbox().recordAttempt('n2', 'a', { ...at, response: 'bin\u0000ary \ud800 end', error: 'odd\u0000' }, { status: 'delivered' }),
        outbox().recordAttempt('n3', 'a', { ...at, response: 'fine' }, { status: 'delivered' }),
      ]);
      expect(results).toEqual([true, true, true]);
      expect((await outbox().get('n2'))?.attempts).toEqual([{ ...at, response: 'bin\\u0000ary \\ud800 end', error: 'odd\\u0000' }]);
      expect(await outbox().get('n1')).toMatchObject({ status: 'delivered', attempts: [{ ...at, response: 'ok' }] });
      expect(await outbox().get('n3')).toMatchObject({ status: 'delivered', attempts: [{ ...at, response: 'fine' }] });
      expect(await claimIds('a', T0 + 60_000)).toEqual([]);
    });

    it("counts an endpoint's attempts per window (2xx succeeded, others failed) and knows its last one", async () => {
      const H = 3_600_000;
      const now = T0 + 10 * 24 * H;
      const windows = [now - H, now - 24 * H, now - 7 * 24 * H];
      const none = { succeeded: 0, failed: 0 };
      await queue(
        delivery('old', { endpointId: 'ep_x', createdAt: now - 9 * 24 * H }),
        delivery('day', { endpointId: 'ep_x', createdAt: now - 5 * 24 * H }),
        delivery('hour', { endpointId: 'ep_x', createdAt: now - 2 * H }),
        delivery('other', { endpointId: 'ep_y', createdAt: now - 2 * H }),
        delivery('ended', { endpointId: 'ep_x', createdAt: now - 2 * H }),
      );
      expect(await outbox().endpointAttemptStats('ep_x', windows)).toEqual({ windows: [none, none, none] });
      const attempt = async (id: string, at: number, outcome: AttemptOutcome['status'], fields: { statusCode?: number; error?: string } = {}) => {
        const claimed = (await claim('o', at)).map((delivery) => delivery.id);
        expect(claimed).toContain(id);
        const ending: AttemptOutcome = outcome === 'pending' ? { status: 'pending', nextAttemptAt: at } : { status: outcome };
        expect(await outbox().recordAttempt(id, 'o', { at, durationMs: 3, ...fields }, ending)).toBe(true);
        await outbox().release(claimed, 'o');
      };
      await attempt('old', now - 9 * 24 * H, 'pending', { statusCode: 500, error: 'receiver answered 500' }); // before every window
      await attempt('old', now - 3 * 24 * H, 'delivered', { statusCode: 200 }); // 7 d
      await attempt('day', now - 5 * 24 * H, 'pending', { error: 'timeout' }); // 7 d
      await attempt('day', now - 20 * H, 'pending', { statusCode: 503, error: 'receiver answered 503' }); // 24 h
      await attempt('day', now - 10 * H, 'delivered', { statusCode: 204 }); // 24 h
      await attempt('hour', now - 30 * 60_000, 'interrupted', { statusCode: 500, error: 'interrupted' }); // left out
      await attempt('hour', now - 20 * 60_000, 'pending', { statusCode: 404, error: 'receiver answered 404' }); // 1 h
      await attempt('hour', now - 10 * 60_000, 'delivered', { statusCode: 201 }); // 1 h, the last one
      await attempt('other', now - 60_000, 'failed', { statusCode: 500, error: 'receiver answered 500' }); // another endpoint
      await attempt('ended', now - 5 * 60_000, 'failed', { error: 'endpoint disabled' }); // what a disable writes: left out
      expect(await outbox().endpointAttemptStats('ep_x', windows)).toEqual({
        windows: [
          { succeeded: 1, failed: 1 },
          { succeeded: 2, failed: 2 },
          { succeeded: 3, failed: 3 },
        ],
        lastAttempt: { at: now - 10 * 60_000, statusCode: 201 },
      });
      const oneFailed = { succeeded: 0, failed: 1 };
      expect(await outbox().endpointAttemptStats('ep_y', windows)).toEqual({
        windows: [oneFailed, oneFailed, oneFailed],
        lastAttempt: { at: now - 60_000, statusCode: 500 },
      });
      expect(await outbox().endpointAttemptStats('ep_z', windows)).toEqual({ windows: [none, none, none] });
      // Many windows in one read (an endpoint's hours); an attempt at a window's very start is in it.
      const hours = Array.from({ length: 24 }, (_, index) => now - (24 - index) * H);
      const counts = (await outbox().endpointAttemptStats('ep_x', hours)).windows;
      expect(counts).toHaveLength(24);
      expect(counts.map(({ succeeded, failed }) => `${succeeded}/${failed}`)).toEqual([
        ...Array(5).fill('2/2'),
        ...Array(10).fill('2/1'),
        ...Array(9).fill('1/1'),
      ]);
    });

    it('enqueues a delivery on its own, keeping its test flag; a second one with that id is rejected', async () => {
      const test = delivery('t1', { tenant: 'acme', endpointId: 'ep_x', createdAt: T0 + 5, test: true });
      await outbox().enqueue(test);
      await outbox().enqueue(delivery('t2', { tenant: 'acme', endpointId: 'ep_x', createdAt: T0 + 6 }));
      expect(await outbox().get('t1')).toEqual({ ...test, status: 'pending', attemptCount: 0, nextAttemptAt: T0 + 5, attempts: [] });
      expect(await outbox().get('t2')).not.toHaveProperty('test');
      expect((await outbox().list({ tenant: 'acme', limit: 10 }))!.map((d) => `${d.id}:${d.test}`)).toEqual(['t2:undefined', 't1:true']);
      expect((await claim('o', T0 + 10)).map((d) => d.id)).toEqual(['t1', 't2']);
      await expect(outbox().enqueue(delivery('t1', { endpointId: 'ep_x' }))).rejects.toThrow();
    });

    it("filters a tenant's listing by event type and creation time (since inclusive, until exclusive), with the cursor", async () => {
      const at = (id: string, createdAt: number, eventType = 'plant.created') =>
        outbox().enqueue(delivery(id, { tenant: 'acme', endpointId: 'ep_x', eventType, createdAt }));
      await at('c0', T0);
      await at('d1', T0 + 1, 'plant.deleted');
      await at('c2', T0 + 2);
      await at('c3', T0 + 3);
      await at('d4', T0 + 4, 'plant.deleted');
      const ids = async (query: { eventType?: string; since?: number; until?: number; after?: string; limit?: number }) =>
        (await outbox().list({ tenant: 'acme', limit: 10, ...query }))?.map((d) => d.id);
      expect(await ids({ eventType: 'plant.deleted' })).toEqual(['d4', 'd1']);
      expect(await ids({ since: T0 + 2 })).toEqual(['d4', 'c3', 'c2']);
      expect(await ids({ until: T0 + 2 })).toEqual(['d1', 'c0']);
      expect(await ids({ since: T0 + 1, until: T0 + 4, eventType: 'plant.created' })).toEqual(['c3', 'c2']);
      expect(await ids({ since: T0 + 1, until: T0 + 4, eventType: 'plant.created', after: 'c3' })).toEqual(['c2']);
      expect(await ids({ eventType: 'plant.created', limit: 2 })).toEqual(['c3', 'c2']);
      expect(await ids({ since: T0 + 5 })).toEqual([]);
    });

    it("lists every delivery without a tenant (operator subscriptions' too), with the same filters and cursor", async () => {
      const at = (id: string, tenant: string, endpointId: string, createdAt: number, eventType = 'plant.created') =>
        outbox().enqueue(delivery(id, { tenant, endpointId, eventType, createdAt }));
      await at('a1', 'acme', 'ep_x', T0);
      await at('s2', 'acme', 'sub_s', T0 + 1);
      await at('g3', 'globex', 'ep_y', T0 + 2);
      await at('s4', 'globex', 'sub_s', T0 + 3, 'plant.deleted');
      const ids = async (query: ListDeliveriesQuery) => (await outbox().list(query))?.map((d) => d.id);
      expect(await ids({})).toEqual(['s4', 'g3', 's2', 'a1']);
      expect(await ids({ endpointId: 'sub_s' })).toEqual(['s4', 's2']);
      expect(await ids({ endpointId: 'sub_s', eventType: 'plant.created' })).toEqual(['s2']);
      expect(await ids({ since: T0 + 1, until: T0 + 3 })).toEqual(['g3', 's2']);
      expect(await ids({ limit: 2 })).toEqual(['s4', 'g3']);
      expect(await ids({ limit: 2, after: 'g3' })).toEqual(['s2', 'a1']);
      expect(await ids({ limit: 0 })).toEqual([]);
      // Without a tenant any delivery marks a place, whatever the other filters; an unknown one does not.
      expect(await ids({ endpointId: 'ep_x', after: 's4' })).toEqual(['a1']);
      expect(await ids({ after: 'nope' })).toBeUndefined();
      // With one: its endpoint deliveries only, and another's delivery or a subscription's marks no place.
      expect(await ids({ tenant: 'acme' })).toEqual(['a1']);
      expect(await ids({ tenant: 'acme', endpointId: 'sub_s' })).toEqual([]);
      expect(await ids({ tenant: 'acme', after: 's2' })).toBeUndefined();
      expect(await ids({ tenant: 'acme', after: 'g3' })).toBeUndefined();
    });

    it('marks a delivery failed, keeps it (durations in whole ms), and never claims it again', async () => {
      await queue(delivery('d1', { createdAt: T0 }));
      await claim('a', T0);
      expect(await outbox().recordAttempt('d1', 'a', { at: T0, durationMs: 1.6, statusCode: 410 }, { status: 'failed' })).toBe(true);
      const failed = await outbox().get('d1');
      expect(failed).toMatchObject({ status: 'failed', attemptCount: 1, attempts: [{ at: T0, durationMs: 2, statusCode: 410 }] });
      expect(failed).not.toHaveProperty('nextAttemptAt');
      expect(await claimIds('a', T0 + 1_000_000_000)).toEqual([]);
      expect(await outbox().nextDueAt()).toBeUndefined();
    });

    it("releases only the given owner's leases, without recording an attempt", async () => {
      await queue(delivery('d1', { createdAt: T0 }), delivery('d2', { createdAt: T0 + 1 }), delivery('d3', { createdAt: T0 + 2 }));
      await claim('a', T0 + 10, { limit: 2 });
      await claim('b', T0 + 10);
      await outbox().release(['d1', 'd2', 'd3', 'unknown'], 'a');
      expect(await outbox().get('d1')).toMatchObject({ status: 'pending', attemptCount: 0, nextAttemptAt: T0 });
      // d1 and d2 are claimable at once; b's lease on d3 still holds.
      expect(await claimIds('c', T0 + 10)).toEqual(['d1', 'd2']);
      await outbox().release([], 'c');
    });

    it('knows when the next delivery becomes claimable, counting live leases', async () => {
      expect(await outbox().nextDueAt()).toBeUndefined();
      await queue(delivery('d1', { createdAt: T0 + 50 }), delivery('d2', { createdAt: T0 + 80 }));
      expect(await outbox().nextDueAt()).toBe(T0 + 50);
      await claim('a', T0 + 60, { leaseMs: 1000, limit: 1 });
      // d1 is leased until T0 + 1060, so d2 (T0 + 80) is next.
      expect(await outbox().nextDueAt()).toBe(T0 + 80);
      await claim('a', T0 + 90, { leaseMs: 1000 });
      expect(await outbox().nextDueAt()).toBe(T0 + 1060);
      await outbox().recordAttempt('d1', 'a', { at: T0 + 60, durationMs: 1, statusCode: 200 }, { status: 'delivered' });
      expect(await outbox().nextDueAt()).toBe(T0 + 1090);
      await outbox().recordAttempt('d2', 'a', { at: T0 + 90, durationMs: 1, statusCode: 500 }, { status: 'pending', nextAttemptAt: T0 + 500 });
      expect(await outbox().nextDueAt()).toBe(T0 + 500);
      await claim('a', T0 + 500);
      await outbox().recordAttempt('d2', 'a', { at: T0 + 500, durationMs: 1, statusCode: 200 }, { status: 'delivered' });
      expect(await outbox().nextDueAt()).toBeUndefined();
    });

    it('knows when the next delivery becomes claimable behind leases that end at different times, or ended unrecorded', async () => {
      await queue(delivery('d1', { createdAt: T0 }), delivery('d2', { createdAt: T0 + 1 }), delivery('d3', { endpointId: 'sub_other', createdAt: T0 + 100 }));
      await claim('a', T0 + 10, { limit: 1, leaseMs: 300 });
      await claim('b', T0 + 10, { limit: 1, leaseMs: 40 });
      // d2's lease (to T0 + 50) ends before d3 is due and before d1's lease ends.
      expect(await outbox().nextDueAt()).toBe(T0 + 50);
      expect(await claimIds('c', T0 + 100, { limit: 1, leaseMs: 1000, skipEndpoints: ['sub_receiver'] })).toEqual(['d3']);
      // All leased, and b never recorded its attempt: d2 is claimable again since its lease ended.
      expect(await outbox().nextDueAt()).toBe(T0 + 50);
      expect(await claimIds('d', T0 + 100)).toEqual(['d2']);
      expect(await outbox().nextDueAt()).toBe(T0 + 310);
    });

    it('passes over endpoints with a backlog ahead and claims the others in one due order, up to the limit', async () => {
      const backlog = Array.from({ length: 30 }, (_, index) =>
        delivery(`slow${String(index).padStart(2, '0')}`, { endpointId: 'sub_slow', createdAt: T0 + index }),
      );
      await queue(...backlog);
      await queue(
        delivery('a1', { endpointId: 'sub_a', createdAt: T0 + 40 }),
        delivery('b1', { endpointId: 'sub_b', createdAt: T0 + 41 }),
        delivery('a2', { endpointId: 'sub_a', createdAt: T0 + 42 }),
        delivery('b2', { endpointId: 'sub_b', createdAt: T0 + 43 }),
        delivery('a3', { endpointId: 'sub_a', createdAt: T0 + 44 }),
        delivery('a4', { endpointId: 'sub_a', createdAt: T0 + 500 }),
      );
      expect(await claimIds('a', T0 + 100, { limit: 3, skipEndpoints: ['sub_slow'] })).toEqual(['a1', 'b1', 'a2']);
      // The leased ones are not claimed again, nor one not yet due.
      expect(await claimIds('a', T0 + 100, { skipEndpoints: ['sub_slow'] })).toEqual(['b2', 'a3']);
      expect(await claimIds('b', T0 + 100, { skipEndpoints: ['sub_slow', 'sub_a'] })).toEqual([]);
      expect(await claimIds('b', T0 + 500, { skipEndpoints: ['sub_slow', 'sub_b'] })).toEqual(['a4']);
      expect(await claimIds('b', T0 + 500, { limit: 50 })).toEqual(backlog.map((d) => d.id));
    });

    it('counts pending deliveries (leased ones too) and knows when the oldest was queued, whatever its due time', async () => {
      expect(await outbox().pendingStats()).toEqual({ count: 0 });
      await queue(delivery('d1', { createdAt: T0 + 10 }), delivery('d2', { createdAt: T0 + 20 }), delivery('d3', { createdAt: T0 + 30 }));
      expect(await outbox().pendingStats()).toEqual({ count: 3, oldestCreatedAt: T0 + 10 });
      // Leased: still pending.
      await claim('a', T0 + 30);
      expect(await outbox().pendingStats()).toEqual({ count: 3, oldestCreatedAt: T0 + 10 });
      // d1 is retried much later than d2 and d3 are due: it stays the oldest.
      await outbox().recordAttempt('d1', 'a', { at: T0 + 30, durationMs: 1, statusCode: 500 }, { status: 'pending', nextAttemptAt: T0 + 99_999 });
      expect(await outbox().pendingStats()).toEqual({ count: 3, oldestCreatedAt: T0 + 10 });
      await outbox().recordAttempt('d2', 'a', { at: T0 + 30, durationMs: 1, statusCode: 200 }, { status: 'delivered' });
      await outbox().recordAttempt('d3', 'a', { at: T0 + 30, durationMs: 1, statusCode: 410 }, { status: 'failed' });
      expect(await outbox().pendingStats()).toEqual({ count: 1, oldestCreatedAt: T0 + 10 });
      await claim('b', T0 + 99_999);
      await outbox().recordAttempt('d1', 'b', { at: T0 + 99_999, durationMs: 1, statusCode: 200 }, { status: 'delivered' });
      expect(await outbox().pendingStats()).toEqual({ count: 0 });
      // A re-queued failure counts again, with its original creation time.
      await outbox().requeue({ id: 'd3', from: 'failed' }, T0 + 200_000);
      expect(await outbox().pendingStats()).toEqual({ count: 1, oldestCreatedAt: T0 + 30 });
    });

    it('lists deliveries newest first, by status, up to a limit (100 by default)', async () => {
      await queue(delivery('old', { createdAt: T0 }), delivery('mid', { createdAt: T0 + 1 }));
      await queue(delivery('new', { createdAt: T0 + 2 }));
      await claim('a', T0 + 10, { limit: 1 });
      await outbox().recordAttempt('old', 'a', { at: T0 + 10, durationMs: 1, statusCode: 200 }, { status: 'delivered' });
      const listed = (await outbox().list())!;
      expect(listed.map((d) => `${d.id}:${d.status}`)).toEqual(['new:pending', 'mid:pending', 'old:delivered']);
      expect(listed[2]!.attempts).toEqual([{ at: T0 + 10, durationMs: 1, statusCode: 200 }]);
      expect((await outbox().list({ status: 'pending' }))!.map((d) => d.id)).toEqual(['new', 'mid']);
      expect((await outbox().list({ status: 'delivered' }))!.map((d) => d.id)).toEqual(['old']);
      expect(await outbox().list({ status: 'failed' })).toEqual([]);
      expect((await outbox().list({ limit: 2 }))!.map((d) => d.id)).toEqual(['new', 'mid']);

      const many = Array.from({ length: 105 }, (_, i) => delivery(`m${i}`, { createdAt: T0 + 100 + i }));
      await queue(...many);
      const page = (await outbox().list())!;
      expect(page).toHaveLength(100);
      expect(page[0]!.id).toBe('m104');
    });

    it('re-queues one delivery only when failed (from: failed), due now, keeping its attempts', async () => {
      await queue(delivery('d1', { createdAt: T0 }), delivery('d2', { createdAt: T0 }));
      await claim('a', T0, { limit: 1 });
      await outbox().recordAttempt('d1', 'a', { at: T0, durationMs: 9, statusCode: 410 }, { status: 'failed' });
      const onlyFailed = (id: string) => ({ id, from: 'failed' }) as const;
      expect(await outbox().requeue(onlyFailed('d2'), T0 + 1)).toBe(0); // pending
      expect(await outbox().requeue(onlyFailed('nope'), T0 + 1)).toBe(0);
      expect(await outbox().requeue(onlyFailed('d1'), T0 + 7000)).toBe(1);
      expect(await outbox().requeue(onlyFailed('d1'), T0 + 7000)).toBe(0); // already pending
      expect(await outbox().get('d1')).toMatchObject({
        status: 'pending',
        attemptCount: 1,
        nextAttemptAt: T0 + 7000,
        attempts: [{ at: T0, durationMs: 9, statusCode: 410 }],
      });
      expect(await claimIds('b', T0 + 6999)).toEqual(['d2']);
      const [again] = await claim('b', T0 + 7000);
      expect(again).toMatchObject({ id: 'd1', attemptCount: 1 });
      await outbox().recordAttempt('d1', 'b', { at: T0 + 7000, durationMs: 1, statusCode: 200 }, { status: 'delivered' });
      expect(await outbox().requeue(onlyFailed('d1'), T0 + 8000)).toBe(0); // delivered
      expect((await outbox().get('d1'))?.attempts).toHaveLength(2);
    });

    it('re-queues one delivery in any state (from: any), leaving a lease in flight to end by itself', async () => {
      await queue(delivery('d1', { createdAt: T0 }));
      await claim('a', T0, { leaseMs: 1000 });
      expect(await outbox().requeue({ id: 'd1', from: 'any' }, T0 + 10)).toBe(1);
      expect(await outbox().get('d1')).toMatchObject({ status: 'pending', nextAttemptAt: T0 + 10, attemptCount: 0 });
      // Still a's: nobody else claims it before the lease ends, and a's result is taken.
      expect(await claimIds('b', T0 + 999)).toEqual([]);
      expect(await outbox().recordAttempt('d1', 'a', { at: T0, durationMs: 1, statusCode: 200 }, { status: 'delivered' })).toBe(true);
      expect(await outbox().requeue({ id: 'nope', from: 'any' }, T0)).toBe(0);
    });

    it('returns copies: mutating a result does not change what is stored', async () => {
      await queue(delivery('d1', { createdAt: T0 }));
      await claim('a', T0);
      await outbox().recordAttempt('d1', 'a', { at: T0, durationMs: 1, statusCode: 500 }, { status: 'pending', nextAttemptAt: T0 + 1 });
      const got = (await outbox().get('d1')) as unknown as { payload: string; attempts: Array<{ statusCode: number }> };
      got.payload = 'changed';
      got.attempts[0]!.statusCode = 999;
      got.attempts.push({ statusCode: 1 });
      expect(await outbox().get('d1')).toMatchObject({ payload: delivery('d1').payload, attempts: [{ statusCode: 500 }] });
    });

    it("keeps the traceparent of the write that queued a delivery (its own, or the endpoint event's) and hands it back with the claim", async () => {
      const traced = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
      const deleting = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00';
      const endpoint = { tenant: 't', url: 'https://receiver.example/hook', secret: `whsec_${Buffer.alloc(32, 7).toString('base64')}`, createdAt: T0 };
      await storage().endpoints.create({ ...endpoint, id: 'ep_a', eventTypes: ['plant.created', 'plant.deleted'] }, 50);
      const event = { eventType: 'plant.created', payload: '{"id":7}', createdAt: T0, traceparent: traced } as const;
      await storage().plants.create('t', plant(7n, 'p'), [delivery('d1', { createdAt: T0, traceparent: traced }), delivery('d2', { createdAt: T0 })], event);
      await storage().plants.delete('t', 7n, { eventType: 'plant.deleted', payload: '{"id":7}', createdAt: T0 + 1, traceparent: deleting });
      const claimed = await claim('a', T0 + 10);
      // Keyed by id, or event type for the fanned-out ones (the order of equal due times is the adapter's).
      expect(Object.fromEntries(claimed.map((d) => [d.id.startsWith('msg_') ? d.eventType : d.id, d.traceparent]))).toEqual({
        d1: traced,
        d2: undefined,
        'plant.created': traced,
        'plant.deleted': deleting,
      });
      expect(claimed).toHaveLength(4);
      expect(claimed.find((d) => d.id === 'd2')).not.toHaveProperty('traceparent');
      expect(await outbox().get('d1')).toMatchObject({ traceparent: traced });
    });
  });

  describe('webhook outbox pruning', () => {
    /** Queues a delivery created at `createdAt` and ends it as `status` with one attempt ending at `finishedAt`. */
    const finish = async (id: string, status: 'delivered' | 'failed', createdAt: number, finishedAt: number) => {
      await queue(delivery(id, { createdAt }));
      expect(await claimIds(`owner-${id}`, finishedAt, { limit: 100 })).toContain(id);
      const attempt = { at: finishedAt - 5, durationMs: 5, statusCode: status === 'delivered' ? 200 : 500 };
      expect(await outbox().recordAttempt(id, `owner-${id}`, attempt, { status })).toBe(true);
    };

    it('deletes delivered and failed deliveries that finished before the cutoff, never pending ones', async () => {
      await finish('old-delivered', 'delivered', T0, T0 + 10);
      await finish('old-failed', 'failed', T0, T0 + 20);
      await queue(delivery('old-pending', { createdAt: T0 }));
      // A retry scheduled long ago is still pending: kept however old.
      await queue(delivery('old-retrying', { createdAt: T0 }));
      await claim('r', T0 + 1, { limit: 100 });
      await outbox().recordAttempt('old-retrying', 'r', { at: T0 + 1, durationMs: 1, statusCode: 500 }, { status: 'pending', nextAttemptAt: T0 + 2 });
      expect(await outbox().prune({ olderThan: T0 + 1_000_000, limit: 100 })).toBe(2);
      expect(await outbox().get('old-delivered')).toBeUndefined();
      expect(await outbox().get('old-failed')).toBeUndefined();
      expect(await outbox().get('old-pending')).toMatchObject({ status: 'pending' });
      expect(await outbox().get('old-retrying')).toMatchObject({ status: 'pending', attemptCount: 1 });
      expect((await outbox().list())!.map((d) => d.id).sort()).toEqual(['old-pending', 'old-retrying']);
      expect(await outbox().prune({ olderThan: T0 + 1_000_000, limit: 100 })).toBe(0);
    });

    it('counts the finish time, not the creation time, and keeps what finished at or after the cutoff', async () => {
      // Created long ago, finished only recently (after long retries): kept.
      await finish('late-finish', 'failed', T0, T0 + 50_000);
      await finish('at-cutoff', 'delivered', T0 + 100, T0 + 40_000);
      await finish('before-cutoff', 'delivered', T0 + 200, T0 + 39_999);
      expect(await outbox().prune({ olderThan: T0 + 40_000, limit: 100 })).toBe(1);
      expect(await outbox().get('before-cutoff')).toBeUndefined();
      expect(await outbox().get('at-cutoff')).toMatchObject({ status: 'delivered' });
      expect(await outbox().get('late-finish')).toMatchObject({ status: 'failed' });
    });

    it('dates a delivery parked by disabling its endpoint from that moment', async () => {
      await storage().endpoints.create(newEndpoint('ep_gone'), 50);
      await queue(delivery('d1', { tenant: 'acme', endpointId: 'ep_gone', createdAt: T0 }));
      await storage().endpoints.setStatus('ep_gone', 'disabled', 'by hand', T0 + 500);
      expect(await outbox().get('d1')).toMatchObject({ status: 'parked' });
      expect(await outbox().prune({ olderThan: T0 + 500, limit: 10 })).toBe(0);
      expect(await outbox().prune({ olderThan: T0 + 501, limit: 10 })).toBe(1);
      expect(await outbox().get('d1')).toBeUndefined();
    });

    it('deletes the attempts with their delivery', async () => {
      await finish('d1', 'delivered', T0, T0 + 10);
      expect(await outbox().prune({ olderThan: T0 + 11, limit: 10 })).toBe(1);
      // Queued again under the same id, it starts with no attempts: none were left behind.
      await queue(delivery('d1', { createdAt: T0 + 20 }));
      expect(await outbox().get('d1')).toMatchObject({ status: 'pending', attemptCount: 0, attempts: [] });
    });

    it('deletes at most `limit` per call', async () => {
      for (let i = 0; i < 5; i++) await finish(`d${i}`, i % 2 === 0 ? 'delivered' : 'failed', T0 + i, T0 + 10 + i);
      expect(await outbox().prune({ olderThan: T0 + 100, limit: 2 })).toBe(2);
      expect(await outbox().list()).toHaveLength(3);
      expect(await outbox().prune({ olderThan: T0 + 100, limit: 2 })).toBe(2);
      expect(await outbox().prune({ olderThan: T0 + 100, limit: 2 })).toBe(1);
      expect(await outbox().prune({ olderThan: T0 + 100, limit: 2 })).toBe(0);
      expect(await outbox().list()).toEqual([]);
    });

    it('keeps a finished delivery that was queued again (resend) until it finishes again', async () => {
      await finish('d1', 'delivered', T0, T0 + 10);
      expect(await outbox().requeue({ id: 'd1', from: 'any' }, T0 + 20)).toBe(1);
      expect(await outbox().prune({ olderThan: T0 + 1_000, limit: 10 })).toBe(0);
      expect(await outbox().get('d1')).toMatchObject({ status: 'pending', attemptCount: 1 });
    });

    it('reclaims the space of pruned deliveries (when it can) without touching what is left, and can be called again', async (context) => {
      const reclaim = outbox().reclaimSpace;
      if (!reclaim) return context.skip('this storage has nothing to reclaim after a prune');
      for (let i = 0; i < 20; i++) await finish(`d${i}`, 'delivered', T0 + i, T0 + 10 + i);
      await queue(delivery('kept', { createdAt: T0 }));
      expect(await outbox().prune({ olderThan: T0 + 100, limit: 100 })).toBe(20);
      await reclaim.call(outbox());
      await reclaim.call(outbox(), { signal: AbortSignal.abort() });
      expect((await outbox().list())!.map((d) => d.id)).toEqual(['kept']);
      await queue(delivery('after', { createdAt: T0 + 1 }));
      expect(await claimIds('o', T0 + 1, { limit: 10 })).toEqual(['kept', 'after']);
    });
  });
}
