import { createServer as createTcpServer, type Server as TcpServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JwksUnavailableError } from './jwks-unavailable-error.js';
import { jwtAuthenticator, type JwtAuthenticatorOptions } from './jwt-authenticator.js';
import { createTestIssuer, type TestIssuer, type TestKey } from './testing/test-issuer.js';

// The JWKS is fetched at most once per cooldown whatever happens, so no flood
// of tokens (valid, forged, unsigned) can turn into a flood of fetches
// against an identity provider, least of all one that is already failing.

const COOLDOWN_MS = 30_000;

/** A clock the test moves by hand; starts at the real time so signed `iat`s look normal. */
function manualClock() {
  const clock = { ms: Date.now(), now: () => clock.ms };
  return clock;
}

/** An RS256-shaped token nobody signed: header and claims made up, signature garbage. */
function forged(kid: string): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'RS256', kid })}.${part({ sub: 'x', tenant: 'a', exp: 9_999_999_999 })}.${'A'.repeat(342)}`;
}

/** How an authentication came out: accepted, refused (undefined) or the JWKS error. */
async function outcome(promise: Promise<unknown>): Promise<'accepted' | 'refused' | JwksUnavailableError> {
  try {
    return (await promise) === undefined ? 'refused' : 'accepted';
  } catch (error) {
    if (error instanceof JwksUnavailableError) return error;
    throw error;
  }
}

describe('remote JWKS: at most one fetch per cooldown before the first successful load', () => {
  let issuer: TestIssuer;
  let key: TestKey;
  beforeAll(async () => {
    issuer = await createTestIssuer();
    key = await issuer.createKey('RS256');
    issuer.publish(key);
  });
  afterAll(() => issuer.close());

  const remoteAuth = (options: Partial<JwtAuthenticatorOptions> = {}) => {
    const clock = manualClock();
    const auth = jwtAuthenticator({
      jwksUrl: issuer.jwksUrl,
      issuer: issuer.issuer,
      audience: issuer.audience,
      jwksCooldownMs: COOLDOWN_MS,
      // The backoff before a first load is tested on its own.
      jwksFirstRetryMs: COOLDOWN_MS,
      clock,
      ...options,
    });
    return { auth, clock };
  };

  it.each([
    ['answers HTTP 500', 'error', /answered HTTP 500/],
    ['answers HTTP 503', 'fail', /answered HTTP 503/],
    ['answers a body that is not JSON', 'garbage', /the body is not JSON/],
    ['does not answer in time', 'hang', /no answer within 100 ms/],
  ] as const)('when the JWKS %s: one fetch for 200 tokens, then one per cooldown; valid tokens pass once it recovers', async (_name, behaviour, reason) => {
    issuer.behaviour = behaviour;
    try {
      const { auth, clock } = remoteAuth({ jwksTimeoutMs: 100, cacheSize: 0 });
      const valid = await issuer.sign(key, {}, clock.ms);
      const before = issuer.jwksRequests;

      // 100 at once, valid and forged alike: they share the one fetch.
      const concurrent = await Promise.all(Array.from({ length: 100 }, (_, i) => outcome(auth.authenticate(i % 2 === 0 ? valid : forged(`made-up-${i}`)))));
      for (const result of concurrent) {
        expect(result).toBeInstanceOf(JwksUnavailableError);
        expect((result as JwksUnavailableError).message).toMatch(reason);
      }
      expect(issuer.jwksRequests - before).toBe(1);

      // 100 more one after the other, the clock moving but within the cooldown: the failure is remembered.
      for (let i = 0; i < 100; i += 1) {
        clock.ms += 200;
        const result = await outcome(auth.authenticate(i % 2 === 0 ? valid : forged(`made-up-${i}`)));
        expect(result).toBeInstanceOf(JwksUnavailableError);
        const error = result as JwksUnavailableError;
        expect(error.message).toMatch(reason);
        expect(error.retryAfterMs).toBe(COOLDOWN_MS - (i + 1) * 200);
      }
      expect(issuer.jwksRequests - before).toBe(1);

      // The cooldown is over: exactly one more fetch, which fails again and is remembered again.
      clock.ms += COOLDOWN_MS - 100 * 200;
      const again = await Promise.all(Array.from({ length: 20 }, () => outcome(auth.authenticate(valid))));
      for (const result of again) expect((result as JwksUnavailableError).retryAfterMs).toBe(COOLDOWN_MS);
      expect(issuer.jwksRequests - before).toBe(2);
      expect(await outcome(auth.authenticate(forged('x')))).toBeInstanceOf(JwksUnavailableError);
      expect(issuer.jwksRequests - before).toBe(2);

      // The issuer recovers; after the cooldown the next token fetches, and valid tokens pass.
      issuer.behaviour = 'serve';
      clock.ms += COOLDOWN_MS;
      expect(await outcome(auth.authenticate(valid))).toBe('accepted');
      expect(await outcome(auth.authenticate(forged(key.kid)))).toBe('refused');
      expect(await outcome(auth.authenticate(valid))).toBe('accepted');
      expect(issuer.jwksRequests - before).toBe(3);
    } finally {
      issuer.behaviour = 'serve';
    }
  });

  it('before the first load, retries after 1 s, doubling up to the cooldown', async () => {
    issuer.behaviour = 'fail';
    try {
      const { auth, clock } = remoteAuth({ jwksFirstRetryMs: 1_000 });
      const valid = await issuer.sign(key, {}, clock.ms);
      const waits: number[] = [];
      for (let i = 0; i < 7; i += 1) {
        const error = (await outcome(auth.authenticate(valid))) as JwksUnavailableError;
        waits.push(error.retryAfterMs!);
        clock.ms += error.retryAfterMs!;
      }
      expect(waits).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, COOLDOWN_MS, COOLDOWN_MS]);
      issuer.behaviour = 'serve';
      expect(await outcome(auth.authenticate(valid))).toBe('accepted');
    } finally {
      issuer.behaviour = 'serve';
    }
  });

  it('when the connection fails (network error): one fetch per cooldown too', async () => {
    // A listener that accepts and drops every connection, counting them.
    let connections = 0;
    const dropper: TcpServer = createTcpServer((socket) => {
      connections += 1;
      socket.destroy();
    });
    await new Promise<void>((resolve) => dropper.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(dropper.address() as AddressInfo).port}/jwks.json`;
      const { auth, clock } = remoteAuth({ jwksUrl: url });
      const results = await Promise.all(Array.from({ length: 50 }, (_, i) => outcome(auth.authenticate(forged(`k${i}`)))));
      for (const result of results) expect(result).toBeInstanceOf(JwksUnavailableError);
      for (let i = 0; i < 50; i += 1) expect(await outcome(auth.authenticate(forged(`k${i}`)))).toBeInstanceOf(JwksUnavailableError);
      expect(connections).toBe(1);
      clock.ms += COOLDOWN_MS;
      expect(await outcome(auth.authenticate(forged('k')))).toBeInstanceOf(JwksUnavailableError);
      expect(connections).toBe(2);
    } finally {
      await new Promise<void>((resolve) => dropper.close(() => resolve()));
    }
  });

  it('keeps the cooldown for unknown kids after a successful load, concurrent or not', async () => {
    const { auth, clock } = remoteAuth();
    const valid = await issuer.sign(key, {}, clock.ms);
    const before = issuer.jwksRequests;
    expect(await outcome(auth.authenticate(valid))).toBe('accepted');
    expect(issuer.jwksRequests - before).toBe(1);
    clock.ms += 1_000;
    const flood = await Promise.all(Array.from({ length: 100 }, (_, i) => outcome(auth.authenticate(forged(`unknown-${i}`)))));
    expect(flood.every((result) => result === 'refused')).toBe(true);
    for (let i = 0; i < 100; i += 1) expect(await outcome(auth.authenticate(forged(`unknown-again-${i}`)))).toBe('refused');
    expect(issuer.jwksRequests - before).toBe(1);
    // After the cooldown an unknown kid may refetch (keys may have rotated), once for all of them.
    clock.ms += COOLDOWN_MS;
    const next = await Promise.all(Array.from({ length: 100 }, (_, i) => outcome(auth.authenticate(forged(`later-${i}`)))));
    expect(next.every((result) => result === 'refused')).toBe(true);
    expect(issuer.jwksRequests - before).toBe(2);
  });
});
