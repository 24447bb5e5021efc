import { describe, expect, it } from 'vitest';
import type { EndpointWithSecrets, WebhookEndpointRepository } from '../ports/webhook-endpoint-repository.js';
import { EndpointCache, forgettingChanges } from './endpoint-cache.js';

const TTL = 5_000;

function endpointNamed(url: string): EndpointWithSecrets {
  return {
    endpoint: { id: 'ep_a', tenant: 'a', url, eventTypes: ['plant.created'], ordering: 'none', status: 'enabled', createdAt: 0, updatedAt: 0 },
    secrets: { current: 'whsec_x' },
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
