import { readFileSync } from 'node:fs';
import { ConfigurationError, ValidationError, type Principal } from '@plant-store/core';
import { silentLogger, systemClock, tokenDigest, type Authenticator, type Clock, type Logger } from '@plant-store/core/adapter';
import { createLocalJWKSet, errors, jwtVerify, type JSONWebKeySet, type JWTVerifyGetKey, type JWTVerifyOptions } from 'jose';
import { jwtPrincipal } from './jwt-principal.js';
import { parseJwks, parseJwksFile } from './parse-jwks.js';
import { remoteJwks } from './remote-jwks.js';
import { VerifiedTokenCache } from './verified-token-cache.js';

/** Asymmetric only: with HMAC, whoever can verify can also sign; `none` signs nothing. */
export const JWT_ALGORITHMS = ['RS256', 'PS256', 'ES256', 'EdDSA'] as const;

/** Longer bearer tokens are refused unread (no hashing, no decoding). */
const MAX_TOKEN_LENGTH = 16 * 1024;

/** Where the verification keys come from: give exactly one of `jwksUrl`, `jwksFile` or `jwks`. */
export interface JwtAuthenticatorOptions {
  /** A remote JWKS (http or https), fetched on first use, cached, refetched for an unknown `kid` and when old. */
  readonly jwksUrl?: string | URL;
  /** A JWKS JSON file, read once when the authenticator is created. */
  readonly jwksFile?: string;
  /** A JWKS object (for host apps that hold the keys). */
  readonly jwks?: JSONWebKeySet;
  /** Accepted `iss` value(s). Required: a token is only as good as its issuer. */
  readonly issuer: string | readonly string[];
  /** Accepted `aud` value(s). Required: without it, a token minted for another service of the same issuer would pass. */
  readonly audience: string | readonly string[];
  /** Claim holding the tenant. @default 'tenant' */
  readonly tenantClaim?: string;
  /** Allowed clock skew for `exp` and `nbf`, in milliseconds. @default 30000 */
  readonly clockToleranceMs?: number;
  /** Verified tokens kept (by SHA-256 digest, until they expire); 0 turns the cache off. @default 10000 */
  readonly cacheSize?: number;
  /** Longest wait for one JWKS fetch (`jwksUrl` only). @default 5000 */
  readonly jwksTimeoutMs?: number;
  /** Least time between two JWKS fetches, whatever their outcome; a failed fetch is remembered that long (`jwksUrl` only). @default 30000 */
  readonly jwksCooldownMs?: number;
  /** Before any key set loaded (no JWT works yet), the wait after the first failed fetch, doubled up to `jwksCooldownMs`. @default 1000 */
  readonly jwksFirstRetryMs?: number;
  /** Age after which the JWKS is refreshed in the background (`jwksUrl` only). @default 600000 (10 minutes) */
  readonly jwksMaxAgeMs?: number;
  /** @default the system clock */
  readonly clock?: Clock;
  /** Told at `info` why each token was refused (never the token), for whoever wires up an identity provider. @default none */
  readonly logger?: Logger;
}

/**
 * An `Authenticator` for JWT bearer tokens (RS256, PS256, ES256, EdDSA): `undefined` for every token it cannot accept;
 * rejects with `JwksUnavailableError` only when the remote JWKS cannot be fetched, as the token could not be judged.
 * Principals are cached by digest until `exp`, so a token outlives its key's removal from the JWKS.
 */
export function jwtAuthenticator(options: JwtAuthenticatorOptions): Authenticator {
  const clock = options.clock ?? systemClock;
  const tenantClaim = options.tenantClaim ?? 'tenant';
  const cache = new VerifiedTokenCache(count('cacheSize', options.cacheSize, 10_000));
  const verifyOptions: JWTVerifyOptions = {
    algorithms: [...JWT_ALGORITHMS],
    issuer: nonEmptyList('issuer', options.issuer),
    audience: nonEmptyList('audience', options.audience),
    clockTolerance: duration('clockToleranceMs', options.clockToleranceMs, 30_000, 0) / 1000,
    requiredClaims: ['exp', 'sub'],
  };
  if (tenantClaim === '') throw new ConfigurationError('tenantClaim', 'must be a non-empty claim name');
  const getKey = keySource(options, clock);
  const logger = options.logger ?? silentLogger;
  const refuse = (reason: string, fields: Record<string, unknown> = {}): undefined => {
    logger.info('JWT refused', { reason, ...fields });
    return undefined;
  };

  return {
    async authenticate(token) {
      if (token.length > MAX_TOKEN_LENGTH) return refuse(`longer than ${MAX_TOKEN_LENGTH} characters`);
      const digest = tokenDigest(token);
      const now = clock.now();
      const cached = cache.get(digest, now);
      if (cached) return cached;
      const verified = await verifyToken(token, getKey, { ...verifyOptions, currentDate: new Date(now) }, tenantClaim);
      if ('refused' in verified) return refuse(verified.refused, verified.fields);
      if (!verified.principal) return refuse(`no "sub" or no "${tenantClaim}" claim (a non-empty string)`);
      cache.set(digest, verified.principal, verified.expiresAt);
      return verified.principal;
    },
  };
}

/** The token's principal and expiry, or why it does not verify: jose's message (never quoting the token), and a wrong `iss`/`aud`. */
async function verifyToken(
  token: string,
  getKey: JWTVerifyGetKey,
  options: JWTVerifyOptions,
  tenantClaim: string,
): Promise<{ principal: Principal | undefined; expiresAt: number } | { refused: string; fields?: Record<string, unknown> }> {
  try {
    const { payload } = await jwtVerify(token, getKey, options);
    return { principal: jwtPrincipal(payload, tenantClaim), expiresAt: payload.exp! * 1000 };
  } catch (error) {
    // Anything but a JOSEError (the JWKS source failing, a key that cannot be imported) must not pass for "invalid token".
    if (!(error instanceof errors.JOSEError)) throw error;
    if (error instanceof errors.JWTClaimValidationFailed && (error.claim === 'iss' || error.claim === 'aud')) {
      return { refused: error.message, fields: { [error.claim]: error.payload[error.claim] } };
    }
    return { refused: error.message };
  }
}

function keySource(options: JwtAuthenticatorOptions, clock: Clock): JWTVerifyGetKey {
  const sources = (['jwksUrl', 'jwksFile', 'jwks'] as const).filter((key) => options[key] !== undefined);
  if (sources.length !== 1) {
    const got = sources.length === 0 ? 'none was given' : `got ${sources.join(' and ')}`;
    throw new ConfigurationError('jwksUrl', `give exactly one of jwksUrl, jwksFile or jwks (${got})`);
  }
  if (options.jwksUrl !== undefined) {
    return remoteJwks({
      url: jwksUrl(options.jwksUrl),
      timeoutMs: duration('jwksTimeoutMs', options.jwksTimeoutMs, 5_000, 1),
      cooldownMs: duration('jwksCooldownMs', options.jwksCooldownMs, 30_000, 0),
      firstRetryMs: duration('jwksFirstRetryMs', options.jwksFirstRetryMs, 1_000, 0),
      maxAgeMs: duration('jwksMaxAgeMs', options.jwksMaxAgeMs, 600_000, 0),
      clock,
    });
  }
  return createLocalJWKSet(options.jwks !== undefined ? checked('jwks', () => parseJwks(options.jwks)) : readJwksFile(options.jwksFile!));
}

function readJwksFile(path: string): JSONWebKeySet {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as { code?: string }).code;
    throw new ConfigurationError('jwksFile', `cannot read ${path}: ${code === 'ENOENT' ? 'no such file' : (code ?? String(error))}`);
  }
  return checked('jwksFile', () => parseJwksFile(path, text));
}

function checked(setting: string, parse: () => JSONWebKeySet): JSONWebKeySet {
  try {
    return parse();
  } catch (error) {
    throw error instanceof ValidationError ? new ConfigurationError(setting, error.message) : error;
  }
}

function jwksUrl(value: string | URL): URL {
  const url = URL.canParse(String(value)) ? new URL(String(value)) : undefined;
  if (url?.protocol !== 'https:' && url?.protocol !== 'http:') {
    throw new ConfigurationError('jwksUrl', 'must be an http or https URL');
  }
  return url;
}

function nonEmptyList(setting: string, value: string | readonly string[] | undefined): string[] {
  const list = typeof value === 'string' ? [value] : [...(value ?? [])];
  if (list.length === 0 || list.some((item) => typeof item !== 'string' || item === '')) {
    throw new ConfigurationError(setting, 'must be a non-empty string (or a list of them)');
  }
  return list;
}

function duration(setting: string, value: number | undefined, fallback: number, min: number): number {
  const ms = value ?? fallback;
  if (!Number.isFinite(ms) || ms < min) throw new ConfigurationError(setting, `must be a number of milliseconds ≥ ${min}`);
  return ms;
}

function count(setting: string, value: number | undefined, fallback: number): number {
  const n = value ?? fallback;
  if (!Number.isSafeInteger(n) || n < 0) throw new ConfigurationError(setting, 'must be a whole number ≥ 0');
  return n;
}
