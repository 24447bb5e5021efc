import type { HostTransactionWrites } from './host-transaction-writes.js';
import type { PlantRepository } from './plant-repository.js';
import type { PortalLinkRepository } from './portal-link-repository.js';
import type { WebhookEndpointRepository } from './webhook-endpoint-repository.js';
import type { WebhookOutbox } from './webhook-outbox.js';

/** A storage adapter: plants, tenants' webhook endpoints and the webhook outbox in one store, so they are written in one transaction. */
export interface Storage {
  readonly plants: PlantRepository;
  readonly outbox: WebhookOutbox;
  readonly endpoints: WebhookEndpointRepository;
  /** Portal links minted by operators (tenant sign-ins to the webhook portal). */
  readonly portalLinks: PortalLinkRepository;
  /** Optional: the database as OpenTelemetry's `db.system.name` names it (`sqlite`, `postgresql`), put on every storage span; absent in memory. */
  readonly dbSystem?: string;
  /**
   * Optional: the plant writes on the host's open transaction `executor` (which kinds a storage takes, it documents).
   * Throws a `ConfigurationError` for an executor it cannot write on. Absent: this storage cannot join a host's transaction.
   */
  joinTransaction?(executor: unknown): HostTransactionWrites;
  /** Resolves when storage answers queries; rejects with a `StorageError` when it does not (readiness). */
  ping(): Promise<void>;
  /** Releases connections and files. Idempotent; members reject after it. */
  close(): Promise<void>;
}
