import type { Principal } from '../domain/principal.js';
import type { Authenticator } from '../ports/authenticator.js';
import type { Clock } from '../ports/clock.js';
import type { PortalLinkRepository } from '../ports/portal-link-repository.js';
import { parsePortalLinkToken, secretMatches } from './portal-link-token.js';

/**
 * An `Authenticator` for portal link tokens (`psl_…`): looks the link up by
 * its id, compares the secret by its SHA-256 digest in constant time, and
 * knows no token that is not a link's, is expired or was revoked. Any other
 * text is left to the other authenticators without a storage read.
 */
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
