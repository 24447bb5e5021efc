import type { LookupFunction } from 'node:net';
import { isPublicAddress, literalHostAddress } from '@plant-store/core/adapter';
import { DestinationNotAllowedError, guardedLookup, type GuardedLookupOptions } from './guarded-lookup.js';

export interface DestinationGuardOptions extends GuardedLookupOptions {
  /** Let requests reach any address (`PLANT_STORE_WEBHOOK_ALLOW_PRIVATE=true`). @default false */
  readonly allowPrivate?: boolean;
}

/**
 * What to add to the options of an http(s) request to `url` so that it can
 * only reach allowed (by default: public) addresses: `{ lookup }`, or `{}`
 * with `allowPrivate`. Throws a {@link DestinationNotAllowedError} when the
 * host is an IP literal that is not allowed, since node:net connects to a
 * literal without any lookup.
 *
 * A kept-alive socket is reused without a new lookup, and agents pool
 * sockets by host and port only. So guarded requests must use an agent of
 * their own (never one shared with trusted requests), or put the lookup on
 * that agent: `new http.Agent({ ..., lookup: guardedLookup() })`.
 */
export function guardedRequestOptions(url: URL, options: DestinationGuardOptions = {}): { lookup?: LookupFunction } {
  if (options.allowPrivate) return {};
  const isAllowed = options.isAllowed ?? isPublicAddress;
  const literal = literalHostAddress(url);
  if (literal !== undefined) {
    if (!isAllowed(literal)) throw new DestinationNotAllowedError(url.hostname, literal);
    return {};
  }
  return { lookup: guardedLookup({ ...options, isAllowed }) };
}
