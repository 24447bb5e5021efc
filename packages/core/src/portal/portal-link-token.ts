import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

// `psl_<id>_<secret>`: fixed lengths (12 random bytes of id, 32 of secret, base64url) parse it although base64url may hold `_`.
const TOKEN = /^psl_([A-Za-z0-9_-]{16})_([A-Za-z0-9_-]{43})$/;

/** A new link id (16 base64url characters) and secret (32 random bytes, base64url). */
export function newPortalLinkParts(): { id: string; secret: string } {
  // An id never starts with `-`, so `plant-store portal-link --revoke <id>` does not read it as an option.
  let id: string;
  do id = randomBytes(12).toString('base64url');
  while (id.startsWith('-'));
  return { id, secret: randomBytes(32).toString('base64url') };
}

export function portalLinkToken(id: string, secret: string): string {
  return `psl_${id}_${secret}`;
}

/** Id and secret of a well-formed portal link token, or `undefined` for any other text. */
export function parsePortalLinkToken(token: string): { id: string; secret: string } | undefined {
  const match = TOKEN.exec(token);
  return match ? { id: match[1]!, secret: match[2]! } : undefined;
}

export function isPortalLinkId(id: string): boolean {
  return /^[A-Za-z0-9_-]{16}$/.test(id);
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
