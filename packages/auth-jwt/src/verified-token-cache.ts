import type { Principal } from '@plant-store/core';

interface Entry {
  readonly principal: Principal;
  readonly expiresAt: number;
}

/** Principals of verified tokens by digest until they expire, LRU: re-inserting on a hit keeps the Map's first key the least recent. */
export class VerifiedTokenCache {
  readonly #entries = new Map<string, Entry>();

  constructor(private readonly maxEntries: number) {}

  get(digest: string, now: number): Principal | undefined {
    const entry = this.#entries.get(digest);
    if (entry === undefined) return undefined;
    this.#entries.delete(digest);
    if (now >= entry.expiresAt) return undefined;
    this.#entries.set(digest, entry);
    return entry.principal;
  }

  set(digest: string, principal: Principal, expiresAt: number): void {
    if (this.maxEntries === 0) return;
    this.#entries.delete(digest);
    if (this.#entries.size >= this.maxEntries) {
      this.#entries.delete(this.#entries.keys().next().value!);
    }
    this.#entries.set(digest, { principal, expiresAt });
  }

  get size(): number {
    return this.#entries.size;
  }
}
