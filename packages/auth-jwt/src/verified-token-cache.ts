import type { Principal } from '@plant-store/core';

interface Entry {
  readonly principal: Principal;
  /** Epoch ms of the token's `exp`: from then on the entry is worthless. */
  readonly expiresAt: number;
}

/**
 * Principals of verified tokens by token digest, until the token expires,
 * least recently used first out. A Map keeps insertion order, so
 * re-inserting on a hit makes its first key the least recently used.
 */
export class VerifiedTokenCache {
  readonly #entries = new Map<string, Entry>();
  readonly #maxEntries: number;

  constructor(maxEntries: number) {
    this.#maxEntries = maxEntries;
  }

  /** The principal for a digest, or `undefined` when absent or expired at `now` (an expired entry is dropped). */
  get(digest: string, now: number): Principal | undefined {
    const entry = this.#entries.get(digest);
    if (entry === undefined) return undefined;
    this.#entries.delete(digest);
    if (now >= entry.expiresAt) return undefined;
    this.#entries.set(digest, entry);
    return entry.principal;
  }

  /** Remembers a principal until `expiresAt`; evicts the least recently used entry when full. */
  set(digest: string, principal: Principal, expiresAt: number): void {
    if (this.#maxEntries === 0) return;
    this.#entries.delete(digest);
    if (this.#entries.size >= this.#maxEntries) {
      this.#entries.delete(this.#entries.keys().next().value!);
    }
    this.#entries.set(digest, { principal, expiresAt });
  }

  get size(): number {
    return this.#entries.size;
  }
}
