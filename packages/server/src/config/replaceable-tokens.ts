import { staticTokens } from '@plant-store/core';
import { tokenDigest, type Authenticator } from '@plant-store/core/adapter';
import type { TokenEntry } from './parse-tokens.js';

/** Entries whose token, tenant, subject or scopes changed count as removed and added. */
export interface TokenChanges {
  readonly added: number;
  readonly removed: number;
  readonly total: number;
}

/** Static tokens replaceable while the service runs; each lookup sees the whole old set or the whole new one. */
export function replaceableTokens(entries: readonly TokenEntry[]): { authenticator: Authenticator; replace(next: readonly TokenEntry[]): TokenChanges } {
  let current = staticTokens(entries);
  let keys = new Set(entries.map(entryKey));
  return {
    authenticator: { authenticate: (token) => current.authenticate(token) },
    replace(next) {
      const authenticator = staticTokens(next);
      const nextKeys = new Set(next.map(entryKey));
      const changes = { added: count(nextKeys, keys), removed: count(keys, nextKeys), total: nextKeys.size };
      current = authenticator;
      keys = nextKeys;
      return changes;
    },
  };
}

function entryKey(entry: TokenEntry): string {
  return JSON.stringify([entry.sha256 ?? tokenDigest(entry.token!), entry.tenant, entry.subject, entry.scopes]);
}

function count(of: ReadonlySet<string>, notIn: ReadonlySet<string>): number {
  let n = 0;
  for (const key of of) if (!notIn.has(key)) n += 1;
  return n;
}
