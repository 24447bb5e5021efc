import { describe, expect, it } from 'vitest';
import { memoryStorage } from '@plant-store/storage-memory';
import type { PortalLinkRepository } from '../ports/portal-link-repository.js';
import { portalLinkAuthenticator } from './portal-link-authenticator.js';
import { PortalLinks } from './portal-links.js';

/** The storage's portal links, counting the lookups authentication makes. */
function countingLinks() {
  const links = memoryStorage().portalLinks;
  const counted = { finds: 0 };
  const repository: PortalLinkRepository = {
    create: (link) => links.create(link),
    find: (id) => {
      counted.finds++;
      return links.find(id);
    },
    revoke: (id, at) => links.revoke(id, at),
    list: (tenant) => links.list(tenant),
  };
  return { repository, counted };
}

describe('portalLinkAuthenticator', () => {
  it('reads storage only for text shaped like a link token; any other token is left to the next authenticator', async () => {
    const { repository, counted } = countingLinks();
    const clock = { now: () => 1_000 };
    const { token } = await new PortalLinks(repository, clock).mint({ tenant: 'acme', readOnly: true });
    const authenticator = portalLinkAuthenticator(repository, clock);

    for (const other of ['static-token', 'eyJhbGciOiJIUzI1NiJ9.e30.sig', 'psl_', `${token}x`, token.replace('psl_', 'psk_')]) {
      expect(await authenticator.authenticate(other), other).toBeUndefined();
    }
    expect(counted.finds).toBe(0);

    expect(await authenticator.authenticate(token)).toMatchObject({ tenant: 'acme', scopes: ['webhooks:read'] });
    expect(counted.finds).toBe(1);
  });
});
