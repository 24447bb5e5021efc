import { describe, expect, it } from 'vitest';
import { createPlantStore, staticTokens, ValidationError, type Principal } from '@plant-store/core';
import { memoryStorage } from '@plant-store/storage-memory';

const admin: Principal = { subject: 'a', tenant: 'acme', scopes: ['plants:read', 'plants:write'] };

describe('createPlantStore', () => {
  it('gives two stores in one process nothing in common', async () => {
    const first = createPlantStore({ storage: memoryStorage(), authenticator: staticTokens([{ token: 'one', tenant: 'acme' }]) });
    const second = createPlantStore({ storage: memoryStorage(), authenticator: staticTokens([{ token: 'two', tenant: 'acme' }]) });
    const seen: string[] = [];
    first.events.on('plant.created', () => seen.push('first'));
    second.events.on('plant.created', () => seen.push('second'));

    await first.plants.create(admin, { id: 1, name: 'only in first' });
    expect(seen).toEqual(['first']);
    expect(first.plants).not.toBe(second.plants);
    expect(first.events).not.toBe(second.events);
    await expect(second.plants.get(admin, 1)).rejects.toMatchObject({ code: 'not_found' });
    await expect(second.authenticate('one')).rejects.toMatchObject({ reason: 'invalid_token' });
    expect(await first.authenticate('one')).toMatchObject({ tenant: 'acme' });

    await first.close();
    // Closing one store leaves the other working.
    await second.plants.create(admin, { id: 2, name: 'still fine' });
    await second.close();
  });

  it('keeps working when a host listener throws (the commit already happened)', async () => {
    const store = createPlantStore({ storage: memoryStorage() });
    store.events.on('plant.created', () => {
      throw new Error('host bug');
    });
    await expect(store.plants.create(admin, { id: 1, name: 'x' })).resolves.toMatchObject({ created: true });
    expect(await store.plants.get(admin, 1)).toEqual({ id: 1n, name: 'x' });
    await store.close();
  });

  it('rejects bad webhook subscriptions naming the entry', () => {
    const create = (subscription: object) =>
      createPlantStore({ storage: memoryStorage(), webhooks: { subscriptions: [subscription as never] } });
    expect(() => create({ url: 'ftp://x', secret: `whsec_${Buffer.alloc(24).toString('base64')}` })).toThrow(/webhooks\[0\]|url/);
    expect(() => create({ url: 'http://x', secret: `whsec_${Buffer.alloc(16).toString('base64')}` })).toThrow(ValidationError);
    expect(() => create({ url: 'http://x', secret: 'plain' })).toThrow(/whsec_/);
  });

  it('close is idempotent', async () => {
    const store = createPlantStore({ storage: memoryStorage() });
    await Promise.all([store.close(), store.close()]);
    await store.close();
  });
});
