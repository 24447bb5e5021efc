import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Prefix of every portal link token: `psl_<linkId>_<secret>`. */
const PORTAL_LINK_TOKEN_PREFIX = 'psl_';

// Fixed lengths make the token parse without a separator that base64url
// itself may contain (`_`): 12 random bytes of id, 32 of secret.
const ID_LENGTH = 16;
const SECRET_LENGTH = 43;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** A new link id (16 base64url characters) and secret (32 random bytes, base64url). */
export function newPortalLinkParts(): { id: string; secret: string } {
  // An id never starts with `-`, so `plant-store portal-link --revoke <id>` does not read it as an option.
  let id: string;
  do id = randomBytes(12).toString('base64url');
  while (id.startsWith('-'));
  return { id, secret: randomBytes(32).toString('base64url') };
}

/** The token handed out for a link. */
export function portalLinkToken(id: string, secret: string): string {
  return `${PORTAL_LINK_TOKEN_PREFIX}${id}_${secret}`;
}

/** Id and secret of a well-formed portal link token, or `undefined` for any other text. */
export function parsePortalLinkToken(token: string): { id: string; secret: string } | undefined {
  if (token.length !== PORTAL_LINK_TOKEN_PREFIX.length + ID_LENGTH + 1 + SECRET_LENGTH) return undefined;
  if (!token.startsWith(PORTAL_LINK_TOKEN_PREFIX)) return undefined;
  const id = token.slice(PORTAL_LINK_TOKEN_PREFIX.length, PORTAL_LINK_TOKEN_PREFIX.length + ID_LENGTH);
  const separator = token[PORTAL_LINK_TOKEN_PREFIX.length + ID_LENGTH];
  const secret = token.slice(PORTAL_LINK_TOKEN_PREFIX.length + ID_LENGTH + 1);
  if (separator !== '_' || !BASE64URL.test(id) || !BASE64URL.test(secret)) return undefined;
  return { id, secret };
}

/** Whether `id` has the form of a link id. */
export function isPortalLinkId(id: string): boolean {
  return id.length === ID_LENGTH && BASE64URL.test(id);
}

/** Lower-case hex SHA-256 of a link secret: the only form in which it is stored. */
export function portalSecretDigest(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Compares a presented secret with a stored digest in constant time (digests of equal length). */
export function secretMatches(secret: string, storedDigest: string): boolean {
  const presented = Buffer.from(portalSecretDigest(secret), 'hex');
  const stored = Buffer.from(storedDigest, 'hex');
  return presented.length === stored.length && timingSafeEqual(presented, stored);
}
