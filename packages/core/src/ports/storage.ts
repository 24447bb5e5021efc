import type { PlantRepository } from './plant-repository.js';
import type { WebhookOutbox } from './webhook-outbox.js';

/** A storage adapter: plants and their webhook outbox in one store, so both are written in one transaction. */
export interface Storage {
  readonly plants: PlantRepository;
  readonly outbox: WebhookOutbox;
  /** Resolves when storage answers queries; rejects with a `StorageError` when it does not (readiness). */
  ping(): Promise<void>;
  /** Releases connections and files. Idempotent; members reject after it. */
  close(): Promise<void>;
}
