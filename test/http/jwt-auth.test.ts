import { jwtAuthenticator, type JwtAuthenticatorOptions } from '@plant-store/auth-jwt';
import { createTestIssuer, type TestIssuer, type TestKey } from '@plant-store/auth-jwt/testing';
import { firstAuthenticator } from '@plant-store/core';
import { exportSPKI, SignJWT, UnsecuredJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, expectObservationsDocumented } from '../support/api-client.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { TOKENS } from '../support/test-tokens.js';

// JWT bearer tokens end to end: a real issuer serving its JWKS
// over HTTP, the real Plant Store server, static tokens configured beside.

expectObservationsDocumented();

const INVALID_TOKEN = 'Bearer realm="plant-store", error="invalid_token"';

describe('JWT bearer tokens over HTTP', () => {
  let issuer: TestIssuer;
  let server: TestServer;
  const keys: Record<string, TestKey> = {};

  const startServer = (options: Partial<JwtAuthenticatorOptions> = {}) =>
    startTestServer('memory', {
      wrapAuthenticator: (tokens) =>
        firstAuthenticator(tokens, jwtAuthenticator({ jwksUrl: issuer.jwksUrl, issuer: issuer.issuer, audience: issuer.audience, ...options })),
    });

  beforeAll(async () => {
    issuer = await createTestIssuer();
    for (const alg of ['RS256', 'PS256', 'ES256', 'EdDSA']) keys[alg] = await issuer.createKey(alg);
    issuer.publish(...Object.values(keys));
    // No cooldown: the rotation test must not wait 30 s for a refetch.
    server = await startServer({ jwksCooldownMs: 0 });
  });
  afterAll(async () => {
    await server?.close();
    await issuer?.close();
  });

  const listAs = (token: string) => api(server.url, 'GET', '/plants', { token });
  const expectInvalidToken = (response: { status: number; headers: Headers; json: unknown }) => {
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(INVALID_TOKEN);
    expect(response.json).toEqual({ error: 401, message: 'invalid bearer token' });
  };

  it.each(['RS256', 'PS256', 'ES256', 'EdDSA'])('accepts a %s token, in its tenant', async (alg) => {
    const token = await issuer.sign(keys[alg]!, { tenant: `tenant-${alg}` });
    const id = 100 + Object.keys(keys).indexOf(alg);
    const created = await api(server.url, 'POST', '/plants', { token, body: `{"id":${id},"name":"Fern"}` });
    expect(created.status).toBe(200);
    expect((await listAs(token)).json).toEqual([{ id, name: 'Fern' }]);
    // Another tenant, through a static token, sees none of it.
    expect((await listAs(TOKENS.owner)).json).toEqual([]);
  });

  const now = () => Math.floor(Date.now() / 1000);
  const refused: [string, () => Promise<string>][] = [
    ['alg none', async () => new UnsecuredJWT({ iss: issuer.issuer, aud: issuer.audience, sub: 'u', tenant: 'a', exp: now() + 60 }).encode()],
    ['HS256 with a shared secret', () => hs256(new TextEncoder().encode('x'.repeat(32)))],
    ['HS256 signed with the RSA public key as the secret', async () => hs256(new TextEncoder().encode(await exportSPKI(keys['RS256']!.publicKey)))],
    ['expired', () => issuer.sign(keys['ES256']!, { iat: now() - 600, exp: now() - 300 })],
    ['not yet valid', () => issuer.sign(keys['ES256']!, { nbf: now() + 300 })],
    ['wrong issuer', () => issuer.sign(keys['ES256']!, { iss: 'https://evil.example' })],
    ['wrong audience', () => issuer.sign(keys['ES256']!, { aud: 'another-service' })],
    ['unknown kid', async () => issuer.sign(await issuer.createKey('ES256', 'unknown-kid'))],
    ['tampered payload', async () => tamper(await issuer.sign(keys['RS256']!, { tenant: 'a' }), { tenant: 'b' })],
    ['missing tenant claim', () => issuer.sign(keys['EdDSA']!, { tenant: undefined })],
  ];

  it.each(refused)('refuses %s with 401 invalid_token', async (_name, makeToken) => {
    expectInvalidToken(await listAs(await makeToken()));
  });

  it('takes scopes from scope or scp: 403 without the one needed', async () => {
    const reader = await issuer.sign(keys['ES256']!, { scope: 'plants:read openid' });
    const writer = await issuer.sign(keys['ES256']!, { scope: undefined, scp: ['plants:write'] });
    expect((await listAs(reader)).status).toBe(200);
    const denied = await api(server.url, 'POST', '/plants', { token: reader, body: '{"id":1,"name":"Fern"}' });
    expect(denied.status).toBe(403);
    expect(denied.headers.get('www-authenticate')).toBe('Bearer realm="plant-store", error="insufficient_scope", scope="plants:write"');
    expect((await api(server.url, 'POST', '/plants', { token: writer, body: '{"id":1,"name":"Fern"}' })).status).toBe(200);
    expect((await listAs(writer)).status).toBe(403);
  });

  it('serves static tokens and JWTs side by side, same tenant, same plants', async () => {
    const jwt = await issuer.sign(keys['PS256']!, { tenant: 'b', scope: 'plants:read plants:write' });
    const created = await api(server.url, 'POST', '/plants', { token: jwt, body: '{"id":200,"name":"Ivy"}' });
    expect(created.status).toBe(200);
    expect((await listAs(TOKENS.otherTenant)).json).toEqual([{ id: 200, name: 'Ivy' }]);
    expectInvalidToken(await listAs('owner-token-z'));
  });

  it('picks up a key rotated in at the JWKS on its unknown kid', async () => {
    const rotated = await issuer.createKey('ES256', 'rotated-in');
    const token = await issuer.sign(rotated, { tenant: 'rotation' });
    expectInvalidToken(await listAs(token)); // not published yet
    issuer.publish(...Object.values(keys), rotated);
    const before = issuer.jwksRequests;
    expect((await listAs(token)).status).toBe(200);
    expect(issuer.jwksRequests).toBe(before + 1);
    expect((await listAs(token)).status).toBe(200);
    expect(issuer.jwksRequests).toBe(before + 1); // cached since
  });
});

describe('JWT bearer tokens when the JWKS is unavailable', () => {
  let issuer: TestIssuer;
  let key: TestKey;
  beforeAll(async () => {
    issuer = await createTestIssuer();
    key = await issuer.createKey('RS256');
    issuer.publish(key);
  });
  afterAll(() => issuer.close());

  // The authenticator's clock is moved by hand: a failed first fetch is remembered for 1 s, doubling up to the cooldown (default 30 s).
  const start = (firstRetryMs?: number) => {
    const clock = { ms: Date.now(), now: () => clock.ms };
    const started = startTestServer('memory', {
      wrapAuthenticator: (tokens) =>
        firstAuthenticator(
          tokens,
          jwtAuthenticator({
            jwksUrl: issuer.jwksUrl,
            issuer: issuer.issuer,
            audience: issuer.audience,
            jwksTimeoutMs: 300,
            clock,
            ...(firstRetryMs === undefined ? {} : { jwksFirstRetryMs: firstRetryMs }),
          }),
        ),
    });
    return started.then((server) => ({ server, clock }));
  };
  const expectUnavailable = (response: { status: number; headers: Headers; json: unknown }, retryAfter: string) => {
    expect(response.status).toBe(503);
    expect(response.json).toEqual({ error: 503, message: 'authentication unavailable' });
    expect(response.headers.get('retry-after')).toBe(retryAfter);
  };

  // A 503, not a 401: the token was not judged ("the backing service fails").
  it.each(['fail', 'hang'] as const)('answers 503 with Retry-After, not a hang, when the JWKS endpoint does %s', async (behaviour) => {
    issuer.behaviour = behaviour;
    const { server, clock } = await start();
    try {
      const token = await issuer.sign(key);
      expectUnavailable(await api(server.url, 'GET', '/plants', { token }), '1');
      expect(JSON.stringify(server.logs)).not.toContain(token);
      // Static tokens do not depend on the JWKS and keep working.
      expect((await api(server.url, 'GET', '/plants', { token: TOKENS.owner })).status).toBe(200);
      issuer.behaviour = 'serve';
      clock.ms += 1_000;
      expect((await api(server.url, 'GET', '/plants', { token })).status).toBe(200);
    } finally {
      issuer.behaviour = 'serve';
      await server.close();
    }
  });

  it('remembers a failed JWKS fetch: requests in the cooldown get 503 with the seconds left, and cost no fetch', async () => {
    issuer.behaviour = 'error';
    const { server, clock } = await start(30_000);
    try {
      const token = await issuer.sign(key);
      const before = issuer.jwksRequests;
      expectUnavailable(await api(server.url, 'GET', '/plants', { token }), '30');
      clock.ms += 12_500;
      // Valid tokens and forged, unsigned ones alike: the failure is remembered, the issuer left alone.
      const unsigned = `${Buffer.from('{"alg":"RS256","kid":"x"}').toString('base64url')}.${Buffer.from('{"sub":"x"}').toString('base64url')}.AAAA`;
      for (const bearer of [token, unsigned, token, unsigned]) {
        expectUnavailable(await api(server.url, 'GET', '/plants', { token: bearer }), '18');
      }
      expectUnavailable(await api(server.url, 'POST', '/plants', { token, body: '{"id":1,"name":"Fern"}' }), '18');
      expect(issuer.jwksRequests - before).toBe(1);
      issuer.behaviour = 'serve';
      expectUnavailable(await api(server.url, 'GET', '/plants', { token }), '18'); // still remembered
      clock.ms += 17_500;
      expect((await api(server.url, 'GET', '/plants', { token })).status).toBe(200);
      expect(issuer.jwksRequests - before).toBe(2);
    } finally {
      issuer.behaviour = 'serve';
      await server.close();
    }
  });
});

describe('Retry-After when an authenticator cannot judge a token', () => {
  // Any authenticator, not only JWT: its rejection may say when to come back; without that, 5 s.
  it.each([
    ['says nothing about when', new Error('down'), '5'],
    ['says 2.5 s', Object.assign(new Error('down'), { retryAfterMs: 2_500 }), '3'],
    ['says 0 s', Object.assign(new Error('down'), { retryAfterMs: 0 }), '1'],
    ['says something unusable', Object.assign(new Error('down'), { retryAfterMs: -1 }), '5'],
  ])('answers 503 when the rejection %s', async (_name, rejection, retryAfter) => {
    const server = await startTestServer('memory', {
      wrapAuthenticator: (tokens) => firstAuthenticator(tokens, { authenticate: () => Promise.reject(rejection) }),
    });
    try {
      const response = await api(server.url, 'GET', '/plants', { token: 'unknown-to-the-static-tokens' });
      expect(response.status).toBe(503);
      expect(response.json).toEqual({ error: 503, message: 'authentication unavailable' });
      expect(response.headers.get('retry-after')).toBe(retryAfter);
    } finally {
      await server.close();
    }
  });
});

function hs256(secret: Uint8Array): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ sub: 'u', tenant: 'a', exp: now + 60 }).setProtectedHeader({ alg: 'HS256', kid: 'key-1' }).sign(secret);
}

/** The token with claims changed in its payload and the signature kept. */
function tamper(token: string, claims: Record<string, unknown>): string {
  const [header, payload, signature] = token.split('.');
  const changed = { ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), ...claims };
  return [header, Buffer.from(JSON.stringify(changed)).toString('base64url'), signature].join('.');
}
