import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigurationError } from '@plant-store/core';
import fc from 'fast-check';
import { exportSPKI, SignJWT, UnsecuredJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JwksUnavailableError } from './jwks-unavailable-error.js';
import { jwtAuthenticator, type JwtAuthenticatorOptions } from './jwt-authenticator.js';
import { createTestIssuer, type TestIssuer, type TestKey } from './testing/test-issuer.js';

let issuer: TestIssuer;
let rsa: TestKey;
beforeAll(async () => {
  issuer = await createTestIssuer();
  rsa = await issuer.createKey('RS256');
});
afterAll(() => issuer.close());

/** A clock the test moves by hand; starts at the real time so signed `iat`s look normal. */
function manualClock() {
  const clock = { ms: Date.now(), now: () => clock.ms };
  return clock;
}

/** An authenticator over a fixed JWKS object holding `keys`, on a manual clock. */
function localAuth(keys: readonly TestKey[], options: Partial<JwtAuthenticatorOptions> = {}) {
  const clock = manualClock();
  const auth = jwtAuthenticator({
    jwks: { keys: keys.map((key) => key.jwk) },
    issuer: issuer.issuer,
    audience: issuer.audience,
    clock,
    ...options,
  });
  return { auth, clock };
}

describe('jwtAuthenticator: what it accepts', () => {
  it.each(['RS256', 'PS256', 'ES256', 'EdDSA'])('accepts %s from a remote JWKS', async (alg) => {
    const key = await issuer.createKey(alg);
    issuer.publish(key);
    const auth = jwtAuthenticator({ jwksUrl: issuer.jwksUrl, issuer: issuer.issuer, audience: issuer.audience });
    const token = await issuer.sign(key, { sub: `user-${alg}`, tenant: 'acme' });
    expect(await auth.authenticate(token)).toEqual({
      subject: `user-${alg}`,
      tenant: 'acme',
      scopes: ['plants:read', 'plants:write'],
    });
  });

  it('reads scopes from scope and scp, keeping only known ones', async () => {
    const { auth, clock } = localAuth([rsa]);
    const scopesOf = async (claims: Record<string, unknown>) =>
      (await auth.authenticate(await issuer.sign(rsa, { scope: undefined, ...claims }, clock.ms)))?.scopes;
    expect(await scopesOf({ scope: 'plants:read openid webhooks:write' })).toEqual(['plants:read', 'webhooks:write']);
    expect(await scopesOf({ scp: ['plants:write', 'email', 42] })).toEqual(['plants:write']);
    expect(await scopesOf({ scp: 'webhooks:read plants:read' })).toEqual(['plants:read', 'webhooks:read']);
    expect(await scopesOf({ scope: 'plants:read', scp: ['plants:write'] })).toEqual(['plants:read', 'plants:write']);
    expect(await scopesOf({})).toEqual([]);
    expect(await scopesOf({ scope: 'PLANTS:READ plants:readx' })).toEqual([]);
  });

  it('takes the tenant from the configured claim', async () => {
    const { auth, clock } = localAuth([rsa], { tenantClaim: 'https://example.com/org' });
    const token = await issuer.sign(rsa, { tenant: undefined, 'https://example.com/org': 'org-7' }, clock.ms);
    expect((await auth.authenticate(token))?.tenant).toBe('org-7');
    expect(await auth.authenticate(await issuer.sign(rsa, {}, clock.ms))).toBeUndefined();
  });

  it('accepts any of several issuers and audiences', async () => {
    const { auth, clock } = localAuth([rsa], { issuer: ['https://other', issuer.issuer], audience: ['x', 'y'] });
    expect(await auth.authenticate(await issuer.sign(rsa, { aud: ['z', 'y'] }, clock.ms))).toBeDefined();
    expect(await auth.authenticate(await issuer.sign(rsa, { aud: 'z' }, clock.ms))).toBeUndefined();
  });

  it('reads a JWKS file once, at creation', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'plant-store-jwks-'));
    try {
      const path = join(folder, 'jwks.json');
      writeFileSync(path, JSON.stringify({ keys: [rsa.jwk] }));
      const auth = jwtAuthenticator({ jwksFile: path, issuer: issuer.issuer, audience: issuer.audience });
      rmSync(path);
      expect((await auth.authenticate(await issuer.sign(rsa)))?.subject).toBe('user-1');
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

describe('jwtAuthenticator: what it refuses (resolves undefined)', () => {
  let ec: TestKey;
  let unpublished: TestKey;
  beforeAll(async () => {
    ec = await issuer.createKey('ES256');
    unpublished = await issuer.createKey('RS256', rsa.kid); // same kid, other key: a bad signature
  });

  const refused: [string, (now: number) => Promise<string>][] = [
    ['alg none', async (now) => new UnsecuredJWT({ iss: issuer.issuer, aud: issuer.audience, sub: 'u', tenant: 'a', exp: now / 1000 + 60 }).encode()],
    ['HS256 with a shared secret', (now) => hmac(new TextEncoder().encode('a secret of 32 bytes or more....'), now)],
    ['HS256 signed with the RSA public key (PEM) as secret', async (now) => hmac(new TextEncoder().encode(await exportSPKI(rsa.publicKey)), now)],
    ['HS256 signed with the RSA public JWK as secret', (now) => hmac(new TextEncoder().encode(JSON.stringify(rsa.jwk)), now)],
    ['expired (beyond the tolerance)', (now) => issuer.sign(rsa, { exp: Math.floor(now / 1000) - 31 }, now)],
    ['not yet valid (beyond the tolerance)', (now) => issuer.sign(rsa, { nbf: Math.floor(now / 1000) + 31 }, now)],
    ['wrong issuer', (now) => issuer.sign(rsa, { iss: 'https://evil.example' }, now)],
    ['wrong audience', (now) => issuer.sign(rsa, { aud: 'another-service' }, now)],
    ['no audience', (now) => issuer.sign(rsa, { aud: undefined }, now)],
    ['unknown kid', async (now) => issuer.sign(await issuer.createKey('RS256', 'nobody-knows'), {}, now)],
    ['bad signature (same kid, other key)', (now) => issuer.sign(unpublished, {}, now)],
    ['tampered payload', async (now) => tamper(await issuer.sign(rsa, { tenant: 'a' }, now), { tenant: 'b' })],
    ['missing tenant claim', (now) => issuer.sign(rsa, { tenant: undefined }, now)],
    ['empty tenant', (now) => issuer.sign(rsa, { tenant: '' }, now)],
    ['numeric tenant', (now) => issuer.sign(rsa, { tenant: 7 }, now)],
    ['missing sub', (now) => issuer.sign(rsa, { sub: undefined }, now)],
    ['missing exp', (now) => issuer.sign(rsa, { exp: undefined }, now)],
    ['ES256 key, token claims RS256 in its header', async (now) => relabel(await issuer.sign(ec, {}, now), 'RS256')],
    ['not a JWT at all', async () => 'owner-token-a'],
  ];

  it.each(refused)('%s', async (_name, makeToken) => {
    const { auth, clock } = localAuth([rsa, ec]);
    const token = await makeToken(clock.ms);
    expect(await auth.authenticate(token)).toBeUndefined();
  });

  it('control: the same construction with a valid token is accepted', async () => {
    const { auth, clock } = localAuth([rsa, ec]);
    expect(await auth.authenticate(await issuer.sign(rsa, { tenant: 'a' }, clock.ms))).toBeDefined();
    expect(await auth.authenticate(await issuer.sign(ec, {}, clock.ms))).toBeDefined();
  });

  it('never rejects for garbage, however shaped', async () => {
    const { auth } = localAuth([rsa, ec]);
    const segment = fc.oneof(
      fc.base64String(),
      fc.string(),
      fc.json().map((json) => Buffer.from(json).toString('base64url')),
    );
    const header = fc
      .record(
        { alg: fc.oneof(fc.constantFrom('RS256', 'ES256', 'EdDSA', 'none', 'HS256'), fc.anything()), kid: fc.oneof(fc.constant(rsa.kid), fc.anything()) },
        { requiredKeys: [] },
      )
      .map((value) => Buffer.from(JSON.stringify(value) ?? 'null').toString('base64url'));
    const token = fc.oneof(
      fc.string(),
      fc.tuple(fc.oneof(header, segment), segment, segment).map((parts) => parts.join('.')),
    );
    await fc.assert(
      fc.asyncProperty(token, async (candidate) => {
        expect(await auth.authenticate(candidate)).toBeUndefined();
      }),
      { numRuns: 300 },
    );
  });
});

describe('jwtAuthenticator: clock and cache', () => {
  it('tolerates clock skew up to clockToleranceMs', async () => {
    const { auth, clock } = localAuth([rsa]);
    const justExpired = await issuer.sign(rsa, { exp: Math.floor(clock.ms / 1000) - 10 }, clock.ms);
    expect(await auth.authenticate(justExpired)).toBeDefined();
    const strict = localAuth([rsa], { clockToleranceMs: 0 });
    expect(await strict.auth.authenticate(justExpired)).toBeUndefined();
  });

  it('answers a repeat token from the cache, and never past its exp', async () => {
    const { auth, clock } = localAuth([rsa]);
    const exp = Math.floor(clock.ms / 1000) + 60;
    const token = await issuer.sign(rsa, { exp }, clock.ms);
    const first = await auth.authenticate(token);
    expect(first).toBeDefined();
    expect(await auth.authenticate(token)).toBe(first); // the very object: no new verification
    clock.ms = exp * 1000 + 1_000; // past exp, inside the 30 s tolerance: verified afresh
    const reverified = await auth.authenticate(token);
    expect(reverified).toEqual(first);
    expect(reverified).not.toBe(first);
    clock.ms = exp * 1000 + 31_000;
    expect(await auth.authenticate(token)).toBeUndefined();
  });

  it('keeps at most cacheSize tokens, dropping the least recently used', async () => {
    const { auth, clock } = localAuth([rsa], { cacheSize: 2 });
    const [t1, t2, t3] = await Promise.all(['1', '2', '3'].map((sub) => issuer.sign(rsa, { sub }, clock.ms)));
    const p1 = await auth.authenticate(t1!);
    const p2 = await auth.authenticate(t2!);
    expect(await auth.authenticate(t1!)).toBe(p1); // t1 is now the most recently used
    await auth.authenticate(t3!); // evicts t2
    expect(await auth.authenticate(t1!)).toBe(p1);
    expect(await auth.authenticate(t2!)).not.toBe(p2);
  });

  it('caches nothing with cacheSize 0', async () => {
    const { auth, clock } = localAuth([rsa], { cacheSize: 0 });
    const token = await issuer.sign(rsa, {}, clock.ms);
    expect(await auth.authenticate(token)).not.toBe(await auth.authenticate(token));
  });
});

describe('jwtAuthenticator: remote JWKS', () => {
  let remote: TestIssuer;
  beforeAll(async () => {
    remote = await createTestIssuer();
  });
  afterAll(() => remote.close());

  const remoteAuth = (options: Partial<JwtAuthenticatorOptions> = {}) => {
    const clock = manualClock();
    const auth = jwtAuthenticator({ jwksUrl: remote.jwksUrl, issuer: remote.issuer, audience: remote.audience, clock, ...options });
    return { auth, clock };
  };

  it('fetches once for concurrent first tokens', async () => {
    remote.behaviour = 'serve';
    const key = await remote.createKey('ES256');
    remote.publish(key);
    const { auth, clock } = remoteAuth();
    const before = remote.jwksRequests;
    const tokens = await Promise.all(['1', '2', '3', '4', '5'].map((sub) => remote.sign(key, { sub }, clock.ms)));
    const principals = await Promise.all(tokens.map((token) => auth.authenticate(token)));
    expect(principals.map((principal) => principal?.subject)).toEqual(['1', '2', '3', '4', '5']);
    expect(remote.jwksRequests - before).toBe(1);
  });

  it('picks up a rotated key on an unknown kid, at most once per cooldown', async () => {
    remote.behaviour = 'serve';
    const [oldKey, newKey] = [await remote.createKey('RS256'), await remote.createKey('EdDSA')];
    remote.publish(oldKey);
    const { auth, clock } = remoteAuth({ jwksCooldownMs: 30_000 });
    expect(await auth.authenticate(await remote.sign(oldKey, {}, clock.ms))).toBeDefined();
    remote.publish(newKey);
    const fresh = await remote.sign(newKey, {}, clock.ms);
    const before = remote.jwksRequests;
    // Within the cooldown an unknown kid is just unknown, and costs no fetch.
    for (const kid of ['made-up-1', 'made-up-2', newKey.kid]) {
      expect(await auth.authenticate(kid === newKey.kid ? fresh : await remote.sign({ ...newKey, kid }, {}, clock.ms))).toBeUndefined();
    }
    expect(remote.jwksRequests).toBe(before);
    clock.ms += 30_000;
    expect(await auth.authenticate(fresh)).toBeDefined();
    expect(remote.jwksRequests).toBe(before + 1);
  });

  it('rejects with JwksUnavailableError when the JWKS answers an error', async () => {
    remote.behaviour = 'fail';
    const key = await remote.createKey('RS256');
    const { auth, clock } = remoteAuth();
    const error = await auth.authenticate(await remote.sign(key, {}, clock.ms)).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(JwksUnavailableError);
    expect((error as Error).message).toBe(`JWKS at ${remote.jwksUrl} unavailable: answered HTTP 503`);
  });

  it('rejects after jwksTimeoutMs when the JWKS never answers', async () => {
    remote.behaviour = 'hang';
    const key = await remote.createKey('RS256');
    const { auth, clock } = remoteAuth({ jwksTimeoutMs: 200 });
    await expect(auth.authenticate(await remote.sign(key, {}, clock.ms))).rejects.toThrow(/unavailable: no answer within 200 ms/);
  });

  it('rejects when nothing listens at the URL, and when the body is not a key set', async () => {
    const gone = await createTestIssuer();
    await gone.close();
    const key = await remote.createKey('RS256');
    const down = jwtAuthenticator({ jwksUrl: gone.jwksUrl, issuer: gone.issuer, audience: gone.audience });
    await expect(down.authenticate(await gone.sign(key))).rejects.toThrow(/unavailable: ECONNREFUSED/);
    remote.behaviour = 'serve';
    remote.publish(); // {"keys": []}
    const { auth, clock } = remoteAuth();
    await expect(auth.authenticate(await remote.sign(key, {}, clock.ms))).rejects.toThrow(/unavailable: not a key set/);
  });

  it('keeps serving known keys when a refresh fails, but cannot judge an unknown kid then', async () => {
    remote.behaviour = 'serve';
    const key = await remote.createKey('PS256');
    remote.publish(key);
    const { auth, clock } = remoteAuth({ jwksMaxAgeMs: 60_000, jwksCooldownMs: 1_000, cacheSize: 0 });
    expect(await auth.authenticate(await remote.sign(key, {}, clock.ms))).toBeDefined();
    remote.behaviour = 'fail';
    clock.ms += 120_000; // stale: refreshed in the background, which fails
    const before = remote.jwksRequests;
    expect(await auth.authenticate(await remote.sign(key, {}, clock.ms))).toBeDefined();
    expect(await auth.authenticate(await remote.sign(key, {}, clock.ms))).toBeDefined();
    clock.ms += 1_000;
    const stranger = await remote.sign({ ...key, kid: 'rotated-in' }, {}, clock.ms);
    await expect(auth.authenticate(stranger)).rejects.toBeInstanceOf(JwksUnavailableError);
    expect(remote.jwksRequests - before).toBe(2); // one background refresh, one for the unknown kid
  });
});

describe('jwtAuthenticator: configuration errors', () => {
  const base = { issuer: 'https://issuer', audience: 'plant-store' };
  const folder = mkdtempSync(join(tmpdir(), 'plant-store-jwks-bad-'));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));
  const file = (name: string, content: string) => {
    writeFileSync(join(folder, name), content);
    return join(folder, name);
  };

  it.each<[string, JwtAuthenticatorOptions, RegExp]>([
    ['no key source', { ...base }, /^jwksUrl: give exactly one of jwksUrl, jwksFile or jwks \(none was given\)$/],
    ['two key sources', { ...base, jwksUrl: 'https://x/jwks', jwks: { keys: [] } }, /got jwksUrl and jwks/],
    ['a URL that is not http(s)', { ...base, jwksUrl: 'file:///etc/jwks.json' }, /^jwksUrl: must be an http or https URL$/],
    ['a missing file', { ...base, jwksFile: '/nonexistent/jwks.json' }, /^jwksFile: cannot read \/nonexistent\/jwks.json: no such file$/],
    ['a file that is not JSON', { ...base, jwksFile: file('bad.json', '{keys') }, /^jwksFile: .*bad.json: not valid JSON/],
    ['a file without keys', { ...base, jwksFile: file('array.json', '[]') }, /^jwksFile: .*array.json: a JWKS must be a JSON object/],
    [
      'private key material',
      { ...base, jwks: { keys: [{ kty: 'EC', d: 'secret', x: 'x', y: 'y', crv: 'P-256' }] } },
      /^jwks: keys\[0\]: private or symmetric key/,
    ],
    ['a symmetric key', { ...base, jwks: { keys: [{ kty: 'oct', k: 'c2VjcmV0' }] } }, /keys\[0\]: private or symmetric/],
    ['no usable key', { ...base, jwks: { keys: [] } }, /^jwks: the JWKS has no RSA, EC or OKP key/],
    ['an empty issuer', { ...base, issuer: '', jwks: { keys: [] } }, /^issuer: must be a non-empty string/],
    ['no audience', { ...base, audience: [], jwksUrl: 'https://x' }, /^audience: must be a non-empty string/],
    ['a negative tolerance', { ...base, clockToleranceMs: -1, jwksUrl: 'https://x' }, /^clockToleranceMs: /],
    ['a fractional cache size', { ...base, cacheSize: 1.5, jwksUrl: 'https://x' }, /^cacheSize: must be a whole number/],
    ['a zero timeout', { ...base, jwksTimeoutMs: 0, jwksUrl: 'https://x' }, /^jwksTimeoutMs: /],
  ])('%s', (_name, options, message) => {
    const create = () => jwtAuthenticator(options);
    expect(create).toThrow(ConfigurationError);
    expect(create).toThrow(message);
  });
});

function hmac(secret: Uint8Array, now: number): Promise<string> {
  return new SignJWT({ iss: issuer.issuer, aud: issuer.audience, sub: 'u', tenant: 'a', exp: Math.floor(now / 1000) + 60 })
    .setProtectedHeader({ alg: 'HS256', kid: rsa.kid })
    .sign(secret);
}

/** The token with claims changed in its payload and the signature kept. */
function tamper(token: string, claims: Record<string, unknown>): string {
  const [header, payload, signature] = token.split('.');
  const changed = { ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), ...claims };
  return [header, Buffer.from(JSON.stringify(changed)).toString('base64url'), signature].join('.');
}

/** The token with another `alg` written into its header, signature kept. */
function relabel(token: string, alg: string): string {
  const [header, ...rest] = token.split('.');
  const changed = { ...JSON.parse(Buffer.from(header!, 'base64url').toString()), alg };
  return [Buffer.from(JSON.stringify(changed)).toString('base64url'), ...rest].join('.');
}
