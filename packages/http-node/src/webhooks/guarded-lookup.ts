import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import { isPublicAddress, literalHostAddress } from '@plant-store/core/adapter';

export const DESTINATION_NOT_ALLOWED = 'EDESTINATIONNOTALLOWED';

/** A webhook destination a tenant endpoint may not reach (no SSRF): a name resolving to, or a literal, non-public address. */
export class DestinationNotAllowedError extends Error {
  readonly code = DESTINATION_NOT_ALLOWED;

  // The refused address is for logs, not the message, which is what the attempt records.
  constructor(
    readonly hostname: string,
    readonly address: string,
  ) {
    super('destination not allowed');
    this.name = 'DestinationNotAllowedError';
  }
}

export type ResolveAll = (
  hostname: string,
  options: dns.LookupAllOptions,
  callback: (error: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void,
) => void;

export interface GuardedLookupOptions {
  /** Resolves names. @default dns.lookup (the system resolver, as node:net uses) */
  readonly resolve?: ResolveAll;
  /** Which resolved addresses may be connected to. @default isPublicAddress */
  readonly isAllowed?: (address: string) => boolean;
}

/**
 * A `lookup` that resolves every address of the name once and refuses the name unless all are allowed: node:net
 * connects only to what it returns, so DNS rebinding is never consulted. IP literals skip `lookup` (see
 * `refusesLiteral`), and a kept-alive socket skips it too, so guarded requests need an agent of their own.
 */
export function guardedLookup(options: GuardedLookupOptions = {}): LookupFunction {
  const resolve: ResolveAll = options.resolve ?? dns.lookup;
  const isAllowed = options.isAllowed ?? isPublicAddress;
  return (hostname, lookupOptions, callback) => {
    resolve(hostname, { ...lookupOptions, all: true }, (error, addresses) => {
      if (error) return callback(error, '');
      if (addresses.length === 0) return callback(notFound(hostname), '');
      const refused = addresses.find(({ address }) => !isAllowed(address));
      if (refused) return callback(new DestinationNotAllowedError(hostname, refused.address), '');
      if (lookupOptions.all) return callback(null, addresses);
      const [first] = addresses as [dns.LookupAddress];
      callback(null, first.address, first.family);
    });
  };
}

/** The address a connection through `guardedLookup`'s `lookup` to `hostname` would use (the first resolved, every one checked), for a proxy to connect to: a proxy resolves names itself, unchecked. */
export function resolveGuarded(lookup: LookupFunction, hostname: string): Promise<string> {
  return new Promise((resolve, reject) => lookup(hostname, {}, (error, address) => (error ? reject(error) : resolve(address as string))));
}

/** Whether the URL's host is an IP literal that is not public: node:net connects to a literal without any lookup. */
export function refusesLiteral(url: URL): boolean {
  const literal = literalHostAddress(url);
  return literal !== undefined && !isPublicAddress(literal);
}

function notFound(hostname: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname });
}
