import type { Principal } from '../domain/principal.js';
import type { Authenticator } from '../ports/authenticator.js';
import type { Clock } from '../ports/clock.js';
import type { PortalLinkRepository } from '../ports/portal-link-repository.js';
import { parsePortalLinkToken, secretMatches } from './portal-link-token.js';

/** An `Authenticator` for live portal link tokens (`psl_…`): the link looked up by id, its secret compared by digest in constant time; other text costs no storage read. */
export function portalLinkAuthenticator(links: PortalLinkRepository, clock: Clock): Authenticator {
  return {
    async authenticate(token): Promise<Principal | undefined> {
      const parts = parsePortalLinkToken(token);
      if (!parts) return undefined;
      const link = await links.find(parts.id);
      if (!link || !secretMatches(parts.secret, link.secretSha256)) return undefined;
      if (link.revokedAt !== undefined || link.expiresAt <= clock.now()) return undefined;
      return { subject: `portal-link:${link.id}`, tenant: link.tenant, scopes: link.scopes, expiresAt: link.expiresAt };
    },
  };
}
