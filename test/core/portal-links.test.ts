import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { MAX_PORTAL_LINK_TTL_MS, UnauthenticatedError, ValidationError, createPlantStore, staticTokens, type PlantStore } from '@plant-store/core';
import type { Clock, Storage } from '@plant-store/core/adapter';
import { memoryStorage } from '@plant-store/storage-memory';
import { postgresStorage } from '@plant-store/storage-postgres';
import { sqliteStorage } from '@plant-store/storage-sqlite';
import { TEST_DATABASE_URL, postgresAvailable, testSchemas } from '../support/postgres.js';

// Portal links in the library: mint, authenticate, revoke, expire, list, on
// every storage. The HTTP side is in test/http/portal-api.test.ts.

const schemas = testSchemas();
afterAll(() => schemas.dropAll());
const folders: string[] = [];
afterAll(() => folders.forEach((folder) => rmSync(folder, { recursive: true, force: true })));

const KINDS: Record<string, () => Promise<Storage>> = {
  memory: async () => memoryStorage(),
  sqlite: async () => {
    const folder = mkdtempSync(join(tmpdir(), 'plant-store-portal-'));
    folders.push(folder);
    return sqliteStorage({ path: join(folder, 'plants.db') });
  },
  ...(postgresAvailable ? { postgres: () => postgresStorage({ connectionString: TEST_DATABASE_URL, schema: schemas.next() }) } : {}),
};

const HOUR = 3_600_000;

describe.each(Object.keys(KINDS))('portal links (%s storage)', (kind) => {
  let offset = 0;
  const clock: Clock = { now: () => 1_800_000_000_000 + offset };
  const stores: PlantStore[] = [];
  const open = async () => {
    offset = 0;
    const store = createPlantStore({ storage: await KINDS[kind]!(), clock, authenticator: staticTokens([{ token: 'static-token', tenant: 'acme' }]) });
    stores.push(store);
    return store;
  };
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((store) => store.close()));
  });

  it('mints a read-write link for an hour by default; its token signs in to the tenant\u2019s webhooks only', async () => {
    const store = await open();
    const link = await store.allTenants.portalLinks.mint({ tenant: 'acme' });
    expect(link).toEqual({
      id: expect.stringMatching(/^[A-Za-z0-9_-]{16}$/),
      token: expect.stringMatching(/^psl_[A-Za-z0-9_-]{16}_[A-Za-z0-9_-]{43}$/),
      tenant: 'acme',
      scopes: ['webhooks:read', 'webhooks:write'],
      expiresAt: clock.now() + HOUR,
    });
    expect(link.token.slice(4, 20)).toBe(link.id);
    expect(await store.authenticate(link.token)).toEqual({
      subject: `portal-link:${link.id}`,
      tenant: 'acme',
      scopes: ['webhooks:read', 'webhooks:write'],
      expiresAt: link.expiresAt,
    });
    // The configured authenticator still works beside the links.
    expect((await store.authenticate('static-token')).tenant).toBe('acme');
  });

  it('a read-only link has webhooks:read alone', async () => {
    const store = await open();
    const link = await store.allTenants.portalLinks.mint({ tenant: 'acme', readOnly: true });
    expect(link.scopes).toEqual(['webhooks:read']);
    expect((await store.authenticate(link.token)).scopes).toEqual(['webhooks:read']);
  });

  it('stores only a digest of the secret: a token with another secret, or for an unknown link, is an invalid token', async () => {
    const store = await open();
    const link = await store.allTenants.portalLinks.mint({ tenant: 'acme' });
    const stored = JSON.stringify(await store.allTenants.portalLinks.list('acme'));
    expect(stored).not.toContain(link.token.slice(21));
    const flipped = link.token.slice(0, -1) + (link.token.endsWith('A') ? 'B' : 'A');
    await expect(store.authenticate(flipped)).rejects.toEqual(new UnauthenticatedError('invalid_token'));
    const otherLink = `psl_${'x'.repeat(16)}${link.token.slice(20)}`;
    await expect(store.authenticate(otherLink)).rejects.toMatchObject({ reason: 'invalid_token' });
    await expect(store.authenticate(`${link.token}x`)).rejects.toMatchObject({ reason: 'invalid_token' });
  });

  it('expires: refused from its expiry on', async () => {
    const store = await open();
    const link = await store.allTenants.portalLinks.mint({ tenant: 'acme', expiresInMs: 60_000 });
    offset = 59_999;
    expect((await store.authenticate(link.token)).tenant).toBe('acme');
    offset = 60_000;
    await expect(store.authenticate(link.token)).rejects.toMatchObject({ reason: 'invalid_token' });
  });

  it('revokes: refused at once; a second revoke or an unknown id is false', async () => {
    const store = await open();
    const link = await store.allTenants.portalLinks.mint({ tenant: 'acme', expiresInMs: MAX_PORTAL_LINK_TTL_MS });
    const other = await store.allTenants.portalLinks.mint({ tenant: 'acme' });
    expect(await store.allTenants.portalLinks.revoke(link.id)).toBe(true);
    await expect(store.authenticate(link.token)).rejects.toMatchObject({ reason: 'invalid_token' });
    expect((await store.authenticate(other.token)).subject).toBe(`portal-link:${other.id}`);
    expect(await store.allTenants.portalLinks.revoke(link.id)).toBe(false);
    expect(await store.allTenants.portalLinks.revoke('nope')).toBe(false);
    expect(await store.allTenants.portalLinks.revoke('A'.repeat(16))).toBe(false);
  });

  it('lists links newest first, per tenant or all, with revocations', async () => {
    const store = await open();
    const first = await store.allTenants.portalLinks.mint({ tenant: 'acme' });
    offset = 1;
    const second = await store.allTenants.portalLinks.mint({ tenant: 'globex', readOnly: true });
    await store.allTenants.portalLinks.revoke(first.id);
    expect((await store.allTenants.portalLinks.list()).map((link) => link.id)).toEqual([second.id, first.id]);
    expect(await store.allTenants.portalLinks.list('acme')).toEqual([
      {
        id: first.id,
        tenant: 'acme',
        scopes: ['webhooks:read', 'webhooks:write'],
        createdAt: first.expiresAt - HOUR,
        expiresAt: first.expiresAt,
        revokedAt: clock.now(),
      },
    ]);
  });

  it('refuses bad mint options, naming them', async () => {
    const store = await open();
    const bad = (options: unknown) => store.allTenants.portalLinks.mint(options as never);
    await expect(bad({ tenant: '' })).rejects.toMatchObject({ field: 'tenant' });
    await expect(bad({ tenant: 'acme', expiresInMs: MAX_PORTAL_LINK_TTL_MS + 1 })).rejects.toMatchObject({ field: 'expiresInMs' });
    await expect(bad({ tenant: 'acme', expiresInMs: 0 })).rejects.toBeInstanceOf(ValidationError);
    await expect(bad({ tenant: 'acme', readOnly: 'yes' })).rejects.toMatchObject({ field: 'readOnly' });
    await expect(bad({ tenant: 'acme', scopes: ['plants:read'] })).rejects.toMatchObject({ field: 'scopes' });
    expect(await store.allTenants.portalLinks.list()).toEqual([]);
  });
});
