import type { DependencyContainer, FactoryProvider, ValueProvider } from 'tsyringe';
import type { Context } from '@opentelemetry/api';
import type * as v from 'valibot';
import type { Principal } from '../domain/principal.js';
import { createPlantEventBus, type PlantEventBus } from '../events/plant-events.js';
import type { Authenticator } from '../ports/authenticator.js';
import { systemClock, type Clock } from '../ports/clock.js';
import { silentLogger, type Logger } from '../ports/logger.js';
import type { Storage } from '../ports/storage.js';
import type { WebhookTransport } from '../ports/webhook-transport.js';
import type { PortalLinks } from '../portal/portal-links.js';
import { tracedStorage } from '../tracing/traced-storage.js';
import type { PlantService } from '../service/plant-service.js';
import type { TenantWebhookDeliveries } from '../webhooks/endpoints/tenant-webhook-deliveries.js';
import type { TenantWebhookEndpoints } from '../webhooks/endpoints/tenant-webhook-endpoints.js';
import type { WebhookAdmin } from '../webhooks/webhook-admin.js';
import type { WebhookDispatchSettings } from '../webhooks/webhook-dispatcher.js';
import type { WebhookSubscriptionSchema } from '../webhooks/webhook-subscription.js';
import {
  deliveryTargets,
  plantService,
  plantStore,
  portalLinks,
  tenantWebhooks,
  webhookAdmin,
  webhookDispatcher,
  webhookPruner,
} from './store-factories.js';
import { ReplaceableSubscriptions, type OperatorSubscriptions } from './operator-subscriptions.js';
import { storeSettings, type StoreSettings } from './store-settings.js';
import { TOKENS } from './tokens.js';
import { instanceCachingFactory, rootContainer } from './tsyringe-modules.js';

export interface PlantStoreWebhookOptions extends WebhookDispatchSettings {
  /**
   * Who receives "New Plant". Validated: a bad url or secret, or two
   * subscriptions with the same id (by default the same url), is a
   * `ValidationError` naming the entry. @default []
   */
  readonly subscriptions?: readonly v.InferInput<typeof WebhookSubscriptionSchema>[];
  /** How deliveries are sent (the HTTP one is `webhookHttpTransport()` from `@plant-store/http-node/webhook-transport`). Without one, deliveries are queued (durably) but this store sends nothing. */
  readonly transport?: WebhookTransport;
  /** After a tenant rotates an endpoint's secret, the previous one still signs this long, in ms (`PLANT_STORE_WEBHOOK_SECRET_OVERLAP`). @default 86400000 (24 h) */
  readonly secretOverlapMs?: number;
  /**
   * Let tenant endpoints point at non-public addresses (`PLANT_STORE_WEBHOOK_ALLOW_PRIVATE`): their URLs may
   * have a non-public IP literal host, and their requests are not marked `restrictDestination`, so the transport
   * connects to any address. The one place this is set: the transport follows each request's mark. @default false
   */
  readonly allowPrivateDestinations?: boolean;
  /**
   * Delivered and failed deliveries, with their attempts, are deleted once
   * they finished this long ago, in ms (`PLANT_STORE_WEBHOOK_RETENTION`); the
   * store with a transport does it in the background, and it is the default
   * of `allTenants.webhooks.prune()`. `null` keeps them forever. @default 2592000000 (30 days)
   */
  readonly retentionMs?: number | null;
  /** Time between background pruning runs, in ms. @default half the retention, from 1 s up to 1 min */
  readonly pruneIntervalMs?: number;
  /**
   * Most webhook endpoints one tenant may have (`PLANT_STORE_WEBHOOK_MAX_ENDPOINTS`); creating one more is a
   * `LimitExceededError`. It also bounds how many deliveries one plant write queues for a tenant's endpoints.
   * A positive integer, else a `ConfigurationError`. @default DEFAULT_MAX_ENDPOINTS_PER_TENANT (50)
   */
  readonly maxEndpointsPerTenant?: number;
}

/**
 * What a store is made of. Every port is an option: a host replaces the
 * clock, logger, authenticator or webhook transport by passing its own; the
 * store composes them on a container of its own.
 */
export interface PlantStoreOptions {
  /** Where plants and the webhook outbox live. Closed by `PlantStore.close()`. */
  readonly storage: Storage;
  /** Checks bearer tokens for `authenticate`, e.g. `staticTokens([...])`; portal link tokens (`psl_…`) are checked by the store itself before it. @default none: only portal links are accepted */
  readonly authenticator?: Authenticator;
  /** Time for delivery dates, retries and signatures. @default the system clock */
  readonly clock?: Clock;
  /** Where the store reports (webhook outcomes, failing listeners, storage trouble). Never given tokens or secrets. @default a logger that drops everything */
  readonly logger?: Logger;
  /** Subscriptions, transport and delivery settings of the "New Plant" webhook. */
  readonly webhooks?: PlantStoreWebhookOptions;
  /** Plants read per storage round trip when streaming a listing. @default 500 */
  readonly batchSize?: number;
}

/** A tenant's webhooks: every call takes the caller's principal, checks its scope and reaches that principal's tenant only. */
export interface TenantWebhooks {
  readonly endpoints: TenantWebhookEndpoints;
  readonly deliveries: TenantWebhookDeliveries;
}

/**
 * What crosses tenants: no principal, no tenant check, for the operator's
 * tools (CLI, metrics, back office). Named after what it reaches, not after
 * who may call it (that is the host's decision), so that a route wired to
 * `store.allTenants.…` reads as the warning it is.
 */
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
  /**
   * The principal for a bearer token; `UnauthenticatedError` when it is
   * missing or unknown. With `traceContext` (the request's span, say), a
   * copy of it that carries that context (see `Principal.traceContext`).
   */
  authenticate(token: string | undefined, traceContext?: Context): Promise<Principal>;
  /** Resolves when storage answers (readiness); rejects with a `StorageError` when it does not, also after `close()`. */
  ready(): Promise<void>;
  /**
   * Stops the webhook dispatcher (attempts in flight get its `stopTimeoutMs`,
   * then are interrupted and stay due), then closes storage. Idempotent.
   */
  close(): Promise<void>;
}

/**
 * Composes a store from its ports on a private child container, so two
 * stores in one process share no state. Starts the webhook dispatcher when a
 * transport is given.
 */
export function createPlantStore(options: PlantStoreOptions): PlantStore {
  const settings = storeSettings(options);
  const container = rootContainer.createChildContainer();
  for (const [token, provider] of registrations(options, settings)) {
    if ('useValue' in provider) container.register(token, provider);
    else container.register(token, provider);
  }
  return container.resolve<PlantStore>(TOKENS.store);
}

/**
 * What a store is made of, at a glance. The container is what keeps this a
 * list: each factory resolves the parts it needs by token, so the order here
 * does not matter and no part is wired by hand; each part is made once per
 * store (the container is the store's own), and all of it goes with
 * `close()`. The host's ports come first: an option given replaces the default
 * registration, nothing else changes.
 */
function registrations(options: PlantStoreOptions, settings: StoreSettings): [symbol, ValueProvider<unknown> | FactoryProvider<unknown>][] {
  return [
    // Every storage call is traced from here on (a no-op without an OpenTelemetry SDK).
    [TOKENS.storage, { useValue: tracedStorage(options.storage) }],
    [TOKENS.clock, { useValue: options.clock ?? systemClock }],
    [TOKENS.logger, { useValue: options.logger ?? silentLogger }],
    [TOKENS.authenticator, { useValue: options.authenticator ?? rejectEveryToken }],
    // A factory: the container takes no `undefined` value, and without a transport this store queues and sends nothing.
    [TOKENS.webhookTransport, { useFactory: () => options.webhooks?.transport }],
    [TOKENS.settings, { useValue: settings }],
    [TOKENS.subscriptions, { useValue: new ReplaceableSubscriptions(settings.subscriptions) }],
    [TOKENS.events, once(() => createPlantEventBus())],
    [TOKENS.plantService, once(plantService)],
    [TOKENS.deliveryTargets, once(deliveryTargets)],
    [TOKENS.webhookDispatcher, once(webhookDispatcher)],
    [TOKENS.webhookPruner, once(webhookPruner)],
    [TOKENS.webhookAdmin, once(webhookAdmin)],
    [TOKENS.tenantWebhooks, once(tenantWebhooks)],
    [TOKENS.portalLinks, once(portalLinks)],
    [TOKENS.store, once(plantStore)],
  ];
}

/** Made the first time it is resolved, then the same for the store's life. */
function once<T>(factory: (container: DependencyContainer) => T): FactoryProvider<T> {
  return { useFactory: instanceCachingFactory(factory) };
}

const rejectEveryToken: Authenticator = { authenticate: async () => undefined };
