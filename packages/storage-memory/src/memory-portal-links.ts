import { StorageError } from '@plant-store/core';
import type { NewPortalLink, PortalLink, PortalLinkRepository, StoredPortalLink } from '@plant-store/core/adapter';
import { assertOpen, type MemoryLifecycle } from './memory-lifecycle.js';

/** Portal links in process memory. */
export class MemoryPortalLinks implements PortalLinkRepository {
  readonly #links = new Map<string, StoredPortalLink>();
  readonly #lifecycle: MemoryLifecycle;

  constructor(lifecycle: MemoryLifecycle) {
    this.#lifecycle = lifecycle;
  }

  async create(link: NewPortalLink): Promise<void> {
    assertOpen(this.#lifecycle);
    if (this.#links.has(link.id)) throw new StorageError(`portal link ${link.id} already exists`);
    this.#links.set(link.id, { ...link, scopes: [...link.scopes] });
  }

  async find(id: string): Promise<StoredPortalLink | undefined> {
    assertOpen(this.#lifecycle);
    const link = this.#links.get(id);
    return link && { ...link, scopes: [...link.scopes] };
  }

  async revoke(id: string, at: number): Promise<boolean> {
    assertOpen(this.#lifecycle);
    const link = this.#links.get(id);
    if (!link || link.revokedAt !== undefined) return false;
    this.#links.set(id, { ...link, revokedAt: at });
    return true;
  }

  async list(tenant?: string): Promise<PortalLink[]> {
    assertOpen(this.#lifecycle);
    return [...this.#links.values()]
      .filter((link) => tenant === undefined || link.tenant === tenant)
      .sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
      .map(({ secretSha256: _digest, ...link }) => ({ ...link, scopes: [...link.scopes] }));
  }
}
