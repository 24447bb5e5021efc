import { ValidationError } from '@plant-store/core';
import type { Clock } from '@plant-store/core/adapter';
import { createLocalJWKSet, errors, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import { JwksUnavailableError } from './jwks-unavailable-error.js';
import { parseJwks } from './parse-jwks.js';

/** As the `jwks*` options of `jwtAuthenticator`. */
export interface RemoteJwksOptions {
  readonly url: URL;
  readonly timeoutMs: number;
  readonly cooldownMs: number;
  readonly firstRetryMs: number;
  readonly maxAgeMs: number;
  readonly clock: Clock;
}

/**
 * A key resolver over a remote JWKS. One fetch in flight and one per cooldown at most, so a flood of forged tokens is
 * never a flood of fetches; a stale key set keeps serving while refreshed, so an outage does not lock out known keys.
 */
export function remoteJwks(options: RemoteJwksOptions): JWTVerifyGetKey {
  const keySet = new RemoteKeySet(options);
  return (header, token) => keySet.getKey(header, token);
}

class RemoteKeySet {
  private keys: JWTVerifyGetKey | undefined;
  private loadedAt = 0;
  private attemptedAt = Number.NEGATIVE_INFINITY;
  // Why the last fetch failed, and how many failed in a row, while no key set was ever loaded.
  private failure = 'not fetched yet';
  private failures = 0;
  private pending: Promise<JWTVerifyGetKey> | undefined;

  constructor(private readonly options: RemoteJwksOptions) {}

  async getKey(...[header, token]: Parameters<JWTVerifyGetKey>): Promise<Awaited<ReturnType<JWTVerifyGetKey>>> {
    const current = this.keys ?? (await this.firstKeys());
    if (this.options.clock.now() - this.loadedAt >= this.options.maxAgeMs && !this.coolingDown()) {
      this.load().catch(() => {}); // stale-while-revalidate: a failure keeps the keys we have
    }
    try {
      return await current(header, token);
    } catch (error) {
      if (!(error instanceof errors.JWKSNoMatchingKey)) throw error;
      // A fetch in flight (a background refresh, say) is as fresh as one we would start.
      const refreshed = this.pending ?? (this.coolingDown() ? undefined : this.load());
      if (refreshed === undefined) throw error;
      return (await refreshed)(header, token);
    }
  }

  /** Before any key set: share the fetch in flight, else answer from the remembered failure in the cooldown. */
  private firstKeys(): Promise<JWTVerifyGetKey> {
    if (this.pending || !this.coolingDown()) return this.load();
    const waitMs = this.retryAfterMs();
    const remembered = `${this.failure} (next fetch in ${Math.ceil(waitMs / 1000)} s)`;
    return Promise.reject(new JwksUnavailableError(this.options.url.href, remembered, { retryAfterMs: waitMs }));
  }

  private load(): Promise<JWTVerifyGetKey> {
    if (this.pending) return this.pending;
    this.attemptedAt = this.options.clock.now();
    this.pending = fetchJwks(this.options)
      .then(createLocalJWKSet)
      .then(
        (loaded) => {
          this.keys = loaded;
          this.loadedAt = this.options.clock.now();
          return loaded;
        },
        (error: unknown) => {
          // Whatever went wrong, the caller learns it as "unavailable" and when to come back.
          if (this.keys === undefined) this.failures += 1;
          this.failure = error instanceof JwksUnavailableError ? error.reason : error instanceof Error ? error.message : String(error);
          const cause = error instanceof JwksUnavailableError ? error.cause : error;
          throw new JwksUnavailableError(this.options.url.href, this.failure, { cause, retryAfterMs: this.retryAfterMs() });
        },
      )
      .finally(() => {
        this.pending = undefined;
      });
    return this.pending;
  }

  private coolingDown(): boolean {
    return this.options.clock.now() - this.attemptedAt < this.waitMs();
  }

  private retryAfterMs(): number {
    return Math.max(0, this.attemptedAt + this.waitMs() - this.options.clock.now());
  }

  /** Least time between fetches now: the cooldown, or less while no key set was ever loaded. */
  private waitMs(): number {
    const { cooldownMs, firstRetryMs } = this.options;
    if (this.keys !== undefined || this.failures === 0) return cooldownMs;
    return Math.min(cooldownMs, firstRetryMs * 2 ** (this.failures - 1));
  }
}

async function fetchJwks({ url, timeoutMs }: RemoteJwksOptions): Promise<JSONWebKeySet> {
  let body: unknown;
  try {
    // No redirects: the configured URL is the trust anchor, as in jose's own remote key set.
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
