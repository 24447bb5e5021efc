import { afterEach, describe, expect, it } from 'vitest';
import type { Storage } from '@plant-store/core/adapter';
import { sqliteStorage } from './sqlite-storage.js';

// The conformance suite lets a storage leave health out of `find` (then every attempt is noted); SQLite reports it, so that
// a dispatcher keeping a healthy endpoint skips its success notes. This holds that it does, as each note left it.

const T0 = 1_700_000_000_000;

const storages: Storage[] = [];
afterEach(async () => {
  for (const storage of storages.splice(0)) await storage.close();
});

describe('SQLite webhook endpoints: health on find', () => {
  it("reports the endpoint's health as the last note left it, healthy ones included", async () => {
    const storage = await sqliteStorage({ path: ':memory:' });
    storages.push(storage);
    await storage.endpoints.create(
      { id: 'ep_a', tenant: 'acme', url: 'https://a.example/hook', eventTypes: ['plant.created'], secret: 'whsec_c2VjcmV0', createdAt: T0 },
      50,
    );
    const health = async () => (await storage.endpoints.find('ep_a'))?.health;
    expect(await health()).toEqual({});
    await storage.endpoints.noteAttempt('ep_a', { at: T0 + 1, succeeded: false, exhausted: false });
    expect(await health()).toEqual({ failingSince: T0 + 1 });
    await storage.endpoints.noteAttempt('ep_a', { at: T0 + 2, succeeded: false, exhausted: true });
    expect(await health()).toEqual({ failingSince: T0 + 1, exhaustedAt: T0 + 2 });
    await storage.endpoints.noteAttempt('ep_a', { at: T0 + 3, succeeded: true, exhausted: false });
    expect(await health()).toEqual({});
  });
});
