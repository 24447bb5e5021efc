import { describe, expect, it } from 'vitest';
import type { EndpointAttemptNote, EndpointHealth, EndpointWithSecrets, WebhookEndpointRepository } from '../ports/webhook-endpoint-repository.js';
import { EndpointCache, forgettingChanges } from './endpoint-cache.js';

const TTL = 5_000;

function endpointNamed(url: string, health?: EndpointHealth): EndpointWithSecrets {
  return {
    endpoint: { id: 'ep_a', tenant: 'a', url, eventTypes: ['plant.created'], ordering: 'none', status: 'enabled', createdAt: 0, updatedAt: 0 },
    secrets: { current: 'whsec_x' },
    ...(health && { health }),
  };
}

/** A repository whose `find` answers the current `url` (undefined: none), counting reads; `release` holds them until called. */
function fakeEndpoints() {
  const state = { url: 'https://a.example/1' as string | undefined, reads: 0, hold: undefined as Promise<void> | undefined };
  const fail = () => Promise.reject(new Error('not in this test'));
  const repository = {
    async find(id: string) {
      state.reads++;
      const url = state.url;
      await state.hold;
      return url === undefined || id !== 'ep_a' ? undefined : endpointNamed(url);
    },
    update: async () => undefined,
    delete: async () => true,
    rotateSecret: async () => {
      throw new Error('storage down');
    },
    setStatus: async () => undefined,
    create: fail,
    get: fail,
    list: fail,
    secrets: fail,
    listAll: fail,
    noteAttempt: fail,
  } satisfies WebhookEndpointRepository;
  return { state, repository };
}

function clockAt(now: number) {
  const clock = { time: now, now: () => clock.time };
  return clock;
}

describe('EndpointCache', () => {
  it('reads an endpoint once while it is kept, and again once its time is up', async () => {
    const { state, repository } = fakeEndpoints();
    const clock = clockAt(1_000);
    const cache = new EndpointCache(repository, clock, TTL);
    expect((await cache.find('ep_a'))?.endpoint.url).toBe('https://a.example/1');
    state.url = 'https://a.example/2';
    clock.time += TTL - 1;
    expect((await cache.find('ep_a'))?.endpoint.url).toBe('https://a.example/1');
    expect(state.reads).toBe(1);
    clock.time += 1;
    expect((await cache.find('ep_a'))?.endpoint.url).toBe('https://a.example/2');
    expect(state.reads).toBe(2);
  });

  it('reads again after forgetting the endpoint, or every endpoint', async () => {
    const { state, repository } = fakeEndpoints();
    const cache = new EndpointCache(repository, clockAt(0), TTL);
    await cache.find('ep_a');
    state.url = 'https://a.example/2';
    cache.forget('ep_other');
    expect((await cache.find('ep_a'))?.endpoint.url).toBe('https://a.example/1');
    cache.forget('ep_a');
    expect((await cache.find('ep_a'))?.endpoint.url).toBe('https://a.example/2');
    state.url = 'https://a.example/3';
    cache.forget();
    expect((await cache.find('ep_a'))?.endpoint.url).toBe('https://a.example/3');
  });

  it('keeps nothing with a time of 0, and never keeps a missing endpoint', async () => {
    const { state, repository } = fakeEndpoints();
    const uncached = new EndpointCache(repository, clockAt(0), 0);
    await uncached.find('ep_a');
    await uncached.find('ep_a');
    expect(state.reads).toBe(2);
    const cache = new EndpointCache(repository, clockAt(0), TTL);
    state.url = undefined;
    expect(await cache.find('ep_a')).toBeUndefined();
    state.url = 'https://a.example/back';
    expect((await cache.find('ep_a'))?.endpoint.url).toBe('https://a.example/back');
  });

  it('shares one read among attempts that want the endpoint while it runs', async () => {
    const { state, repository } = fakeEndpoints();
    const cache = new EndpointCache(repository, clockAt(0), TTL);
    const found = await Promise.all([cache.find('ep_a'), cache.find('ep_a'), cache.find('ep_a')]);
    expect(found.map((entry) => entry?.endpoint.url)).toEqual(Array(3).fill('https://a.example/1'));
    expect(state.reads).toBe(1);
  });

  it('does not keep a read that was in flight when the endpoint was forgotten (it read what the change replaced)', async () => {
    const { state, repository } = fakeEndpoints();
    const cache = new EndpointCache(repository, clockAt(0), TTL);
    let release!: () => void;
    state.hold = new Promise((resolve) => (release = resolve));
    const stale = cache.find('ep_a');
    // The change commits, then is forgotten, while the read of the old row is still on its way.
    state.url = 'https://a.example/2';
    cache.forget('ep_a');
    const fresh = cache.find('ep_a');
    release();
    expect((await stale)?.endpoint.url).toBe('https://a.example/1');
    expect((await fresh)?.endpoint.url).toBe('https://a.example/2');
    state.hold = undefined;
    expect((await cache.find('ep_a'))?.endpoint.url).toBe('https://a.example/2');
    expect(state.reads).toBe(2);
  });

  it('passes a storage failure on and keeps nothing of it', async () => {
    const { state, repository } = fakeEndpoints();
    const cache = new EndpointCache({ ...repository, find: () => Promise.reject(new Error('storage down')) }, clockAt(0), TTL);
    await expect(cache.find('ep_a')).rejects.toThrow('storage down');
    const working = new EndpointCache(repository, clockAt(0), TTL);
    await expect(working.find('ep_a')).resolves.toBeDefined();
    expect(state.reads).toBe(1);
  });
});

describe('forgettingChanges', () => {
  it.each([
    ['update', (endpoints: WebhookEndpointRepository) => endpoints.update('a', 'ep_a', { updatedAt: 1 })],
    ['delete', (endpoints: WebhookEndpointRepository) => endpoints.delete('a', 'ep_a', 1)],
    ['setStatus', (endpoints: WebhookEndpointRepository) => endpoints.setStatus('ep_a', 'disabled', 'x', 1)],
    ['rotateSecret (rejected: it may still have committed)', (endpoints: WebhookEndpointRepository) => endpoints.rotateSecret('a', 'ep_a', 's', 2, 1)],
  ])('forgets the endpoint after %s, before its caller hears back', async (_change, change) => {
    const { state, repository } = fakeEndpoints();
    const cache = new EndpointCache(repository, clockAt(0), TTL);
    await cache.find('ep_a');
    state.url = 'https://a.example/2';
    await change(forgettingChanges(repository, cache)).catch(() => undefined);
    expect((await cache.find('ep_a'))?.endpoint.url).toBe('https://a.example/2');
  });

  it('forgets nothing on attempt notes, creates and reads', async () => {
    const { state, repository } = fakeEndpoints();
    const cache = new EndpointCache(repository, clockAt(0), TTL);
    const endpoints = forgettingChanges({ ...repository, noteAttempt: async () => ({}) }, cache);
    await cache.find('ep_a');
    await endpoints.noteAttempt('ep_a', { at: 1, succeeded: false, exhausted: false });
    await endpoints.find('ep_a');
    expect(state.reads).toBe(2);
    await cache.find('ep_a');
    expect(state.reads).toBe(2);
  });
});

/** A repository keeping one endpoint's failing streak as storage would, reporting it with `find` unless `reportsHealth` is off; counts what reaches it. */
function healthTrackingEndpoints(reportsHealth = true) {
  const state = { health: {} as EndpointHealth, reads: 0, notes: [] as EndpointAttemptNote[] };
  const { repository } = fakeEndpoints();
  const endpoints: WebhookEndpointRepository = {
    ...repository,
    async find(id) {
      state.reads++;
      return id === 'ep_a' ? endpointNamed('https://a.example/1', reportsHealth ? { ...state.health } : undefined) : undefined;
    },
    async noteAttempt(id, note) {
      if (id !== 'ep_a') return undefined;
      state.notes.push(note);
      const { failingSince = note.at, exhaustedAt = note.exhausted ? note.at : undefined } = state.health;
      state.health = note.succeeded ? {} : { failingSince, ...(exhaustedAt !== undefined && { exhaustedAt }) };
      return { ...state.health };
    },
  };
  return { state, endpoints };
}

const success = (at: number): EndpointAttemptNote => ({ at, succeeded: true, exhausted: false });
const failure = (at: number): EndpointAttemptNote => ({ at, succeeded: false, exhausted: false });

describe('attempt notes through the cache', () => {
  it('writes no success while the kept endpoint has no failing streak, and answers its health', async () => {
    const { state, endpoints } = healthTrackingEndpoints();
    const cache = new EndpointCache(endpoints, clockAt(0), TTL);
    const noting = forgettingChanges(endpoints, cache);
    await cache.find('ep_a');
    for (let at = 1; at <= 3; at++) expect(await noting.noteAttempt('ep_a', success(at))).toEqual({});
    expect(state.notes).toEqual([]);
  });

  it('writes every failure, and the success after one (it clears the streak), then skips again', async () => {
    const { state, endpoints } = healthTrackingEndpoints();
    const cache = new EndpointCache(endpoints, clockAt(0), TTL);
    const noting = forgettingChanges(endpoints, cache);
    await cache.find('ep_a');
    expect(await noting.noteAttempt('ep_a', failure(1))).toEqual({ failingSince: 1 });
    expect(await noting.noteAttempt('ep_a', { at: 2, succeeded: false, exhausted: true })).toEqual({ failingSince: 1, exhaustedAt: 2 });
    expect(await noting.noteAttempt('ep_a', success(3))).toEqual({});
    expect(await noting.noteAttempt('ep_a', success(4))).toEqual({});
    expect(state.notes.map((note) => note.at)).toEqual([1, 2, 3]);
    expect(state.reads).toBe(1);
  });

  it('writes the success that clears a streak another process started, once the endpoint is read again (forgotten on its notice, or timed out)', async () => {
    const { state, endpoints } = healthTrackingEndpoints();
    const clock = clockAt(0);
    const cache = new EndpointCache(endpoints, clock, TTL);
    const noting = forgettingChanges(endpoints, cache);
    await cache.find('ep_a');
    // Another process's attempt failed: its storage announces the streak, this process forgets the endpoint.
    state.health = { failingSince: 1 };
    cache.forget('ep_a');
    await cache.find('ep_a');
    expect(await noting.noteAttempt('ep_a', success(2))).toEqual({});
    expect(state.health).toEqual({});
    // Its notice lost this time: the next read after the cache's time limit shows the streak.
    state.health = { failingSince: 3 };
    clock.time += TTL;
    await cache.find('ep_a');
    await noting.noteAttempt('ep_a', success(TTL + 1));
    expect(state.notes.map((note) => note.at)).toEqual([2, TTL + 1]);
    expect(state.health).toEqual({});
  });

  it('writes every note of an endpoint not kept, timed out, or whose storage reports no health', async () => {
    const { state, endpoints } = healthTrackingEndpoints();
    const clock = clockAt(0);
    const cache = new EndpointCache(endpoints, clock, TTL);
    await forgettingChanges(endpoints, cache).noteAttempt('ep_a', success(1));
    await cache.find('ep_a');
    clock.time += TTL;
    await forgettingChanges(endpoints, cache).noteAttempt('ep_a', success(2));
    expect(state.notes).toHaveLength(2);

    const silent = healthTrackingEndpoints(false);
    const silentCache = new EndpointCache(silent.endpoints, clockAt(0), TTL);
    const noting = forgettingChanges(silent.endpoints, silentCache);
    await silentCache.find('ep_a');
    await noting.noteAttempt('ep_a', success(1));
    await noting.noteAttempt('ep_a', failure(2));
    await noting.noteAttempt('ep_a', success(3));
    await noting.noteAttempt('ep_a', success(4));
    expect(silent.state.notes).toHaveLength(4);
  });

  it('does not keep a read in flight when a failure is noted meanwhile (it may show no streak)', async () => {
    const { state, endpoints } = healthTrackingEndpoints();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const slowFind = endpoints.find.bind(endpoints);
    const cache = new EndpointCache(
      {
        ...endpoints,
        find: async (id) => {
          const found = await slowFind(id);
          await held;
          return found;
        },
      },
      clockAt(0),
      TTL,
    );
    const noting = forgettingChanges(endpoints, cache);
    const reading = cache.find('ep_a');
    await noting.noteAttempt('ep_a', failure(1));
    release();
    expect((await reading)?.health).toEqual({});
    await cache.find('ep_a');
    await noting.noteAttempt('ep_a', success(2));
    expect(state.notes.map((note) => note.at)).toEqual([1, 2]);
    expect(state.health).toEqual({});
  });
});
