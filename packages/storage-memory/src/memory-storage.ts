import { parkedLimitOption, type Storage } from '@plant-store/core/adapter';
import { assertOpen, type MemoryLifecycle } from './memory-lifecycle.js';
import { MemoryPlantRepository } from './memory-plant-repository.js';
import { MemoryPortalLinks } from './memory-portal-links.js';
import { MemoryWebhookEndpoints } from './memory-webhook-endpoints.js';
import { MemoryWebhookOutbox } from './memory-webhook-outbox.js';

/** Options of {@link memoryStorage}. */
export interface MemoryStorageOptions {
  /** Parked messages kept per disabled endpoint; past it the oldest are dropped and counted on the endpoint (`parkedDropped`). 0 keeps none. @default DEFAULT_PARKED_LIMIT (10,000) */
  readonly parkedLimit?: number;
}

/**
 * Storage in process memory, for tests, testers and embedding: the semantics of the durable adapters (the same
 * conformance suite), but everything is lost with the process. Each call returns a new, empty, isolated store.
 */
export function memoryStorage(options: MemoryStorageOptions = {}): Storage {
  const lifecycle: MemoryLifecycle = { closed: false };
  const outbox = new MemoryWebhookOutbox(lifecycle, parkedLimitOption(options.parkedLimit));
  const endpoints = new MemoryWebhookEndpoints(outbox, lifecycle);
  const plants = new MemoryPlantRepository(outbox, endpoints, lifecycle);
  return {
    plants,
    outbox,
    endpoints,
    portalLinks: new MemoryPortalLinks(lifecycle),
    async ping() {
      assertOpen(lifecycle);
    },
    async close() {
      lifecycle.closed = true;
    },
  };
}
