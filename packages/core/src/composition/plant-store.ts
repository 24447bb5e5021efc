import type * as v from 'valibot';
import type { Principal } from '../domain/principal.js';
import type { PlantEventBus } from '../events/plant-events.js';
import type { Authenticator } from '../ports/authenticator.js';
import type { Clock } from '../ports/clock.js';
import type { Logger } from '../ports/logger.js';
import type { Storage } from '../ports/storage.js';
import type { WebhookTransport } from '../ports/webhook-transport.js';
import type { OperatorSubscriptions } from './operator-subscriptions.js';
import type { PortalLinks } from '../portal/portal-links.js';
import type { HostTransaction } from '../service/host-transaction.js';
import type { PlantService } from '../service/plant-service.js';
import type { TenantWebhookDeliveries } from '../webhooks/endpoints/tenant-webhook-deliveries.js';
import type { TenantWebhookEndpoints } from '../webhooks/endpoints/tenant-webhook-endpoints.js';
import type { WebhookAdmin } from '../webhooks/webhook-admin.js';
import type { DestinationKind } from '../webhooks/destination-url.js';
import type { WebhookDispatchSettings } from '../webhooks/dispatcher-options.js';
import type { WebhookSubscriptionSchema } from '../webhooks/webhook-subscription.js';

export interface PlantStoreWebhookOptions extends WebhookDispatchSettings {
  /** Who receives "New Plant"; a bad url or secret, or two subscriptions with one id (by default: one url), is a `ValidationError` naming the entry. @default [] */
  readonly subscriptions?: readonly v.InferInput<typeof WebhookSubscriptionSchema>[];
  /** How deliveries are sent (the HTTP one is `webhookHttpTransport()` from `@plant-store/http-node/webhook-transport`). Without one, deliveries are queued (durably) but this store sends nothing. */
  readonly transport?: WebhookTransport;
  /** After a tenant rotates an endpoint's secret, the previous one still signs this long, in ms (`PLANT_STORE_WEBHOOK_SECRET_OVERLAP`). @default 86400000 (24 h) */
  readonly secretOverlapMs?: number;
  /** Let tenant endpoints point at non-public addresses (`PLANT_STORE_WEBHOOK_ALLOW_PRIVATE`): IP literal hosts are accepted and requests are not marked `restrictDestination`. @default false */
  readonly allowPrivateDestinations?: boolean;
  /** Destination kinds tenant endpoints may name (`PLANT_STORE_WEBHOOK_DESTINATION_KINDS`); operator subscriptions may name any. The transport must send to them (`brokerTransports()` from `@plant-store/broker-transports`). @default ['http'] */
  readonly endpointDestinationKinds?: readonly DestinationKind[];
  /** Finished deliveries are deleted this long after they finished, in ms (`PLANT_STORE_WEBHOOK_RETENTION`), in the background with a transport and by default in `allTenants.webhooks.prune()`; `null` keeps them. @default 2592000000 (30 days) */
  readonly retentionMs?: number | null;
  /** Time between background pruning runs, in ms. @default half the retention, from 1 s up to 1 min */
  readonly pruneIntervalMs?: number;
  /** Most webhook endpoints per tenant (`PLANT_STORE_WEBHOOK_MAX_ENDPOINTS`), so also most deliveries one write queues for them; one more is a `LimitExceededError`. @default DEFAULT_MAX_ENDPOINTS_PER_TENANT (50) */
  readonly maxEndpointsPerTenant?: number;
  /**
   * How long the dispatcher keeps a tenant endpoint (URL, secrets, status) it read for an attempt, in ms; 0 reads it at every attempt. Changes
   * made through this store apply to the next attempt; those made through another process, when its storage cannot tell (SQLite) or its
   * notice is lost, within this time. @default DEFAULT_ENDPOINT_CACHE_MS (5000)
   */
  readonly endpointCacheMs?: number;
}

/** What a store is made of: every port is an option, so a host replaces the clock, logger, authenticator or transport by passing its own. */
export interface PlantStoreOptions {
  /** Where plants and the webhook outbox live. Closed by `PlantStore.close()`. */
  readonly storage: Storage;
  /** Checks bearer tokens for `authenticate`, e.g. `staticTokens([...])`; portal link tokens (`psl_…`) are checked by the store itself before it. @default none: only portal links are accepted */
  readonly authenticator?: Authenticator;
  /** Time for delivery dates, retries and signatures. @default the system clock */
  readonly clock?: Clock;
  /** Where the store reports (webhook outcomes, failing listeners, storage trouble). Never given tokens or secrets. @default a logger that drops everything */
  readonly logger?: Logger;
  readonly webhooks?: PlantStoreWebhookOptions;
  /** Plants read per storage round trip when streaming a listing. @default 500 */
  readonly batchSize?: number;
}

/** A tenant's webhooks: every call takes the caller's principal, checks its scope and reaches that principal's tenant only. */
export interface TenantWebhooks {
  readonly endpoints: TenantWebhookEndpoints;
  readonly deliveries: TenantWebhookDeliveries;
}

/** What crosses tenants, with no principal or tenant check (CLI, metrics, back office): named after what it reaches, so a route wired to it reads as a warning. */
export interface AllTenants {
  readonly webhooks: WebhookAdmin;
  /** Portal links: mint, revoke and list sign-ins of any tenant to its webhooks. */
  readonly portalLinks: PortalLinks;
  /** The operator's webhook subscriptions (`webhooks.subscriptions`), replaceable while the store runs. */
  readonly subscriptions: OperatorSubscriptions;
}

/** A composed store: the service, its events, tenants' webhooks, the operator's cross-tenant tools, readiness, and the means to authenticate callers. */
export interface PlantStore {
  readonly plants: PlantService;
  readonly events: PlantEventBus;
  readonly webhooks: TenantWebhooks;
  readonly allTenants: AllTenants;
  /** The principal for a bearer token; `UnauthenticatedError` when it is missing or unknown. */
  authenticate(token: string | undefined): Promise<Principal>;
  /**
   * The store joined to a transaction the host opened: plant writes through it run on `executor` (a `pg` client
   * between `BEGIN` and `COMMIT`, a kysely `Transaction`, or on SQLite the better-sqlite3 `Database` inside
   * `db.transaction(fn)`), so they and their webhooks commit or roll back with the host's own SQL. Call its
   * `committed()` after the commit to emit their events. A `ConfigurationError` when this storage cannot join it.
   */
  inTransaction(executor: unknown): HostTransaction;
  /** Resolves when storage answers (readiness); rejects with a `StorageError` when it does not, also after `close()`. */
  ready(): Promise<void>;
  /** Stops the webhook dispatcher (attempts in flight get its `stopTimeoutMs`, then stay due), then closes storage. Idempotent. */
  close(): Promise<void>;
}
