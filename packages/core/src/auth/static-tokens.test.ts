import { describe, expect, it } from 'vitest';
import { ValidationError } from '../errors.js';
import { staticTokens } from './static-tokens.js';
import { tokenDigest } from './token-digest.js';

describe('staticTokens', () => {
  it('finds principals by token, with all scopes by default', async () => {
    const auth = staticTokens([{ token: 'secret-a', tenant: 'acme', subject: 'alice' }]);
    expect(await auth.authenticate('secret-a')).toEqual({
      subject: 'alice',
      tenant: 'acme',
      scopes: ['plants:read', 'plants:write', 'webhooks:read', 'webhooks:write'],
    });
    expect(await auth.authenticate('secret-b')).toBeUndefined();
    expect(await auth.authenticate('')).toBeUndefined();
  });

  it('accepts SHA-256 digests instead of tokens (any hex case)', async () => {
    const auth = staticTokens([{ sha256: tokenDigest('hashed').toUpperCase(), tenant: 'globex', scopes: ['plants:read'] }]);
    const principal = await auth.authenticate('hashed');
    expect(principal).toMatchObject({ tenant: 'globex', scopes: ['plants:read'] });
    expect(principal?.subject).toBe(`token:${tokenDigest('hashed').slice(0, 8)}`);
  });

  it('rejects bad entries naming them', () => {
    const bad = (entry: unknown) => () => staticTokens([{ token: 'ok', tenant: 't' }, entry as never]);
    expect(bad({ tenant: 't' })).toThrow(/exactly one of token or sha256/);
    expect(bad({ token: 'x', sha256: tokenDigest('x'), tenant: 't' })).toThrow(ValidationError);
    expect(bad({ sha256: 'abc', tenant: 't' })).toThrow(/sha256 must be 64 hex digits/);
    expect(bad({ token: 'x', tenant: '' })).toThrow(/tenant/);
    expect(bad({ token: 'x', tenant: 't', scopes: ['plants:admin'] })).toThrow(/scopes/);
    expect(bad({ token: 'ok', tenant: 'u' })).toThrow(/configured twice/);
    expect(bad({ tenant: 't' })).toThrow(expect.objectContaining({ field: 'tokens[1]' }));
  });

  it('answers the same for a token however often, and among more known tokens than it remembers', async () => {
    const count = 1100;
    const auth = staticTokens(Array.from({ length: count }, (_, index) => ({ token: `token-${index}`, tenant: `tenant-${index}` })));
    for (let round = 0; round < 2; round++) {
      for (let index = 0; index < count; index++) {
        expect((await auth.authenticate(`token-${index}`))?.tenant).toBe(`tenant-${index}`);
      }
    }
    // Unknown tokens stay unknown, however often they come.
    for (let attempt = 0; attempt < 3; attempt++) expect(await auth.authenticate('token-x')).toBeUndefined();
    expect((await auth.authenticate('token-0'))?.tenant).toBe('tenant-0');
  });
});
