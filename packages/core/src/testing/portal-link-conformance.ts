import { describe, expect, it } from 'vitest';
import { StorageError } from '../errors.js';
import type { NewPortalLink } from '../ports/portal-link-repository.js';
import type { Storage } from '../ports/storage.js';

const T0 = 1_700_000_000_000;
const DIGEST = 'a'.repeat(64);

/** A new portal link with sensible defaults (read-write, one hour). */
export function newPortalLink(id: string, overrides: Partial<NewPortalLink> = {}): NewPortalLink {
  return { id, tenant: 'acme', scopes: ['webhooks:read', 'webhooks:write'], secretSha256: DIGEST, createdAt: T0, expiresAt: T0 + 3_600_000, ...overrides };
}

/** `PortalLinkRepository` contract. */
export function describePortalLinkConformance(storage: () => Storage): void {
  const links = () => storage().portalLinks;

  describe('portal links', () => {
    it('stores a link and finds it by id with its digest; an unknown id is undefined, a second link with the same id a StorageError', async () => {
      await links().create(newPortalLink('link-aaaaaaaaaaa', { scopes: ['webhooks:read'] }));
      expect(await links().find('link-aaaaaaaaaaa')).toEqual(newPortalLink('link-aaaaaaaaaaa', { scopes: ['webhooks:read'] }));
      expect(await links().find('link-bbbbbbbbbbb')).toBeUndefined();
      await expect(links().create(newPortalLink('link-aaaaaaaaaaa', { tenant: 'globex' }))).rejects.toBeInstanceOf(StorageError);
      expect((await links().find('link-aaaaaaaaaaa'))?.tenant).toBe('acme');
    });

    it('revokes once: the first time stays, a second revoke and an unknown id are false', async () => {
      await links().create(newPortalLink('link-aaaaaaaaaaa'));
      expect(await links().revoke('link-aaaaaaaaaaa', T0 + 10)).toBe(true);
      expect(await links().revoke('link-aaaaaaaaaaa', T0 + 20)).toBe(false);
      expect(await links().revoke('link-zzzzzzzzzzz', T0 + 20)).toBe(false);
      expect(await links().find('link-aaaaaaaaaaa')).toEqual({ ...newPortalLink('link-aaaaaaaaaaa'), revokedAt: T0 + 10 });
    });

    it("lists a tenant's links (or every tenant's) newest first, without digests", async () => {
      await links().create(newPortalLink('link-1aaaaaaaaaa', { createdAt: T0 }));
      await links().create(newPortalLink('link-2aaaaaaaaaa', { createdAt: T0 + 2, tenant: 'globex' }));
      await links().create(newPortalLink('link-3aaaaaaaaaa', { createdAt: T0 + 1, scopes: ['webhooks:read'] }));
      await links().revoke('link-1aaaaaaaaaa', T0 + 5);
      const acme = await links().list('acme');
      expect(acme.map((link) => link.id)).toEqual(['link-3aaaaaaaaaa', 'link-1aaaaaaaaaa']);
      expect(acme[0]).toEqual({ id: 'link-3aaaaaaaaaa', tenant: 'acme', scopes: ['webhooks:read'], createdAt: T0 + 1, expiresAt: T0 + 3_600_000 });
      expect(acme[1]).toMatchObject({ revokedAt: T0 + 5 });
      expect(acme[0]).not.toHaveProperty('secretSha256');
      expect((await links().list()).map((link) => link.id)).toEqual(['link-2aaaaaaaaaa', 'link-3aaaaaaaaaa', 'link-1aaaaaaaaaa']);
      expect(await links().list('initech')).toEqual([]);
    });
  });
}
