import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import { isPublicAddress, literalHostAddress } from '@plant-store/core/adapter';

/** `code` of the error a refused destination fails with. */
export const DESTINATION_NOT_ALLOWED = 'EDESTINATIONNOTALLOWED';

/** A webhook destination a tenant endpoint may not reach (no SSRF): a name resolving to, or a literal, non-public address. */
export class DestinationNotAllowedError extends Error {
  readonly code = DESTINATION_NOT_ALLOWED;
  /** The host of the URL, as given to the lookup. */
  readonly hostname: string;
  /** The refused address (for logs; not part of the message, which is what the attempt records). */
  readonly address: string;

  constructor(hostname: string, address: string) {
    super('destination not allowed');
    this.name = 'DestinationNotAllowedError';
    this.hostname = hostname;
    this.address = address;
  }
}

/** The slice of `dns.lookup` the guard needs: every address of a name. */
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
 * A `lookup` for `http.request`, `net.connect` or an `http.Agent` that
 * resolves every address of the name once and refuses (with a
 * {@link DestinationNotAllowedError}) unless all of them are allowed.
 * node:net connects only to what this lookup returns, so the address
 * checked is the address connected to: a second, different DNS answer
 * (rebinding) is never consulted. A name that mixes public and private
 * addresses is refused whole, whichever one the connection would try
 * first: it is misconfigured or an attack either way.
 *
 * node:net skips `lookup` for IP literals; check those before connecting
 * (see `refusesLiteral`). A kept-alive socket is reused without a new lookup,
 * so guarded requests need an agent of their own, with this lookup on it.
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

/** Whether the URL's host is an IP literal that is not public: node:net connects to a literal without any lookup. */
export function refusesLiteral(url: URL): boolean {
  const literal = literalHostAddress(url);
  return literal !== undefined && !isPublicAddress(literal);
}

function notFound(hostname: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname });
}
