import { describe, expect, it } from 'vitest';
import { isPortalLinkId, newPortalLinkParts, parsePortalLinkToken, portalLinkToken, portalSecretDigest, secretMatches } from './portal-link-token.js';

describe('portal link tokens', () => {
  it('round-trip through the token; ids never start with "-" (a CLI argument must not look like an option)', () => {
    for (let i = 0; i < 2000; i++) {
      const { id, secret } = newPortalLinkParts();
      expect(id).not.toMatch(/^-/);
      expect(isPortalLinkId(id)).toBe(true);
      expect(parsePortalLinkToken(portalLinkToken(id, secret))).toEqual({ id, secret });
    }
  });

  it('parses only well-formed tokens', () => {
    const { id, secret } = newPortalLinkParts();
    const token = portalLinkToken(id, secret);
    for (const bad of [
      '',
      'psl_',
      token.slice(0, -1),
      `${token}A`,
      token.replace('psl_', 'psk_'),
      `${token.slice(0, 20)}.${token.slice(21)}`,
      token.replace(secret, `${secret.slice(0, -1)}=`),
    ]) {
      expect(parsePortalLinkToken(bad)).toBeUndefined();
    }
  });

  it('compares a secret with its stored digest', () => {
    const digest = portalSecretDigest('s3cret');
    expect(secretMatches('s3cret', digest)).toBe(true);
    expect(secretMatches('s3creT', digest)).toBe(false);
    expect(secretMatches('s3cret', 'abc')).toBe(false);
  });
});
