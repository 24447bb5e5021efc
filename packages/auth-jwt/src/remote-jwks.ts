import { ValidationError, type Clock } from '@plant-store/core';
import { createLocalJWKSet, errors, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import { JwksUnavailableError } from './jwks-unavailable-error.js';
import { parseJwks } from './parse-jwks.js';

export interface RemoteJwksOptions {
  readonly url: URL;
  /** Longest wait for one fetch of the key set, body included. */
  readonly timeoutMs: number;
  /** Least time between two fetches, however many unknown `kid`s arrive. */
  readonly cooldownMs: number;
  /** Age after which the key set is refreshed in the background. */
  readonly maxAgeMs: number;
  readonly clock: Clock;
}

/**
 * A key resolver over a remote JWKS, for `jwtVerify`:
 * - the first token waits for the first fetch (bounded by `timeoutMs`); until
 *   one succeeds, every token waits for a fetch and rejects with
 *   `JwksUnavailableError` if it fails;
 * - an unknown `kid` triggers a refetch (keys rotated at the issuer), at most
 *   once per `cooldownMs`, so a flood of made-up `kid`s cannot turn into a
 *   flood of fetches; in the cooldown, an unknown `kid` is just unknown;
 * - a key set older than `maxAgeMs` is refreshed in the background while the
 *   old one keeps serving, and keeps serving if the refresh fails: a JWKS
 *   outage does not lock out holders of tokens signed with known keys.
 * Concurrent fetches are never started: callers share the one in flight.
 */
export function remoteJwks(options: RemoteJwksOptions): JWTVerifyGetKey {
  const { clock, cooldownMs, maxAgeMs } = options;
  let keys: JWTVerifyGetKey | undefined;
  let loadedAt = 0;
  let attemptedAt = Number.NEGATIVE_INFINITY;
  let pending: Promise<JWTVerifyGetKey> | undefined;

  const load = (): Promise<JWTVerifyGetKey> => {
    attemptedAt = clock.now();
    pending ??= fetchJwks(options)
      .then((jwks) => {
        keys = createLocalJWKSet(jwks);
        loadedAt = clock.now();
        return keys;
      })
      .finally(() => {
        pending = undefined;
      });
    return pending;
  };
  const coolingDown = () => clock.now() - attemptedAt < cooldownMs;

  return async (header, token) => {
    const current = keys ?? (await load());
    if (clock.now() - loadedAt >= maxAgeMs && !coolingDown()) {
      load().catch(() => {}); // stale-while-revalidate: a failure keeps the keys we have
    }
    try {
      return await current(header, token);
    } catch (error) {
      if (!(error instanceof errors.JWKSNoMatchingKey)) throw error;
      // A fetch in flight (a background refresh, say) is as fresh as one we would start.
      const refreshed = pending ?? (coolingDown() ? undefined : load());
      if (refreshed === undefined) throw error;
      return (await refreshed)(header, token);
    }
  };
}

async function fetchJwks({ url, timeoutMs }: RemoteJwksOptions): Promise<JSONWebKeySet> {
  let body: unknown;
  try {
    // The signal bounds the whole exchange, body included. No redirects: the
    // configured URL is the trust anchor, as in jose's own remote key set.
    const response = await fetch(url, {
      signal: AbortSignal.timeout(timeoutMs),
      redirect: 'manual',
      headers: { accept: 'application/jwk-set+json, application/json' },
    });
    if (response.status !== 200) {
      await response.body?.cancel();
      throw new JwksUnavailableError(url.href, `answered HTTP ${response.status}`);
    }
    body = await response.json();
  } catch (error) {
    if (error instanceof JwksUnavailableError) throw error;
    throw new JwksUnavailableError(url.href, fetchFailure(error, timeoutMs), { cause: error });
  }
  try {
    return parseJwks(body);
  } catch (error) {
    if (error instanceof ValidationError) throw new JwksUnavailableError(url.href, `not a key set: ${error.message}`);
    throw error;
  }
}

function fetchFailure(error: unknown, timeoutMs: number): string {
  if (error instanceof DOMException && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return `no answer within ${timeoutMs} ms`;
  }
  if (error instanceof SyntaxError) return 'the body is not JSON';
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
}
