import { createRequire } from 'node:module';
import type * as Tsyringe from 'tsyringe';
import type { DependencyContainer } from 'tsyringe';
import * as v from 'valibot';
import type { Principal } from '../domain/principal.js';
import { validate } from '../domain/validate.js';
import { AuthenticationUnavailableError, ConfigurationError, StorageError, UnauthenticatedError, ValidationError } from '../errors.js';
import { createPlantEventBus, type PlantEventBus } from '../events/plant-events.js';
import type { Authenticator } from '../ports/authenticator.js';
import { systemClock, type Clock } from '../ports/clock.js';
import { silentLogger, type Logger } from '../ports/logger.js';
import type { Storage } from '../ports/storage.js';
import type { WebhookTransport } from '../ports/webhook-transport.js';
import { firstAuthenticator } from '../auth/first-authenticator.js';
import { portalLinkAuthenticator } from '../portal/portal-link-authenticator.js';
import { PortalLinks } from '../portal/portal-links.js';
import { tracedStorage } from '../tracing/traced-storage.js';
import { PlantService } from '../service/plant-service.js';
import { combinedTargets, endpointTargets, subscriptionTargets, type DeliveryTargets } from '../webhooks/delivery-targets.js';
import { TenantWebhookDeliveries } from '../webhooks/endpoints/tenant-webhook-deliveries.js';
import { TenantWebhookEndpoints } from '../webhooks/endpoints/tenant-webhook-endpoints.js';
import { DEFAULT_MAX_ENDPOINTS_PER_TENANT, DEFAULT_SECRET_OVERLAP_MS, DEFAULT_WEBHOOK_RETENTION_MS } from '../webhooks/webhook-defaults.js';
import { WebhookAdmin } from '../webhooks/webhook-admin.js';
import { WebhookDispatcher, type WebhookDispatchSettings } from '../webhooks/webhook-dispatcher.js';
import { WebhookPruner } from '../webhooks/webhook-pruner.js';
import { WebhookSubscriptionSchema, type WebhookSubscription } from '../webhooks/webhook-subscription.js';
import { TOKENS } from './tokens.js';

// tsyringe (and the reflect-metadata polyfill it requires first) are
// CommonJS. Imported from ESM, Node 20 scans every file they re-export for
// named exports, which makes loading them take twice as long (about 15 ms of
// the service's start-up); required, they load as plain CommonJS.
const require = createRequire(import.meta.url);
require('reflect-metadata');
const { container: rootContainer, instanceCachingFactory } = require('tsyringe') as typeof Tsyringe;

export interface PlantStoreWebhookOptions extends WebhookDispatchSettings {
  /**
   * Who receives "New Plant". Validated: a bad url or secret, or two
   * subscriptions with the same id (by default the same url), is a
   * `ValidationError` naming the entry. @default []
   */
  readonly subscriptions?: readonly v.InferInput<typeof WebhookSubscriptionSchema>[];
  /** How deliveries are sent (the HTTP one is `webhookHttpTransport()` from `@plant-store/http-node`). Without one, deliveries are queued (durably) but this store sends nothing. */
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
   * of `webhooks.prune()`. `null` keeps them forever. @default 2592000000 (30 days)
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
}

/** A composed store: the service, its events, tenants' webhooks, the operator's cross-tenant tools, readiness, and the means to authenticate callers. */
export interface PlantStore {
  readonly plants: PlantService;
  readonly events: PlantEventBus;
  readonly webhooks: TenantWebhooks;
  readonly allTenants: AllTenants;
  /** The operator's portal links: mint, revoke and list sign-ins of one tenant to its webhooks. */
  readonly portalLinks: PortalLinks;
  /** The principal for a bearer token; `UnauthenticatedError` when it is missing or unknown. */
  authenticate(token: string | undefined): Promise<Principal>;
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
  // Every storage call is traced from here on (a no-op without an OpenTelemetry SDK).
  options = { ...options, storage: tracedStorage(options.storage) };
  const container = rootContainer.createChildContainer();
  registerPorts(container, options);
  registerServices(container, options);
  registerWebhooks(container, options);
  const dispatcher = startDispatcher(container, options.webhooks);
  const pruner = dispatcher && startPruner(container, options.webhooks);
  return compose(container, dispatcher, pruner);
}

function registerPorts(container: DependencyContainer, options: PlantStoreOptions): void {
  const subscriptions = validateSubscriptions(options.webhooks?.subscriptions ?? []);
  container.register(TOKENS.storage, { useValue: options.storage });
  container.register(TOKENS.clock, { useValue: options.clock ?? systemClock });
  container.register(TOKENS.logger, { useValue: options.logger ?? silentLogger });
  container.register(TOKENS.authenticator, { useValue: options.authenticator ?? rejectEveryToken });
  container.register(TOKENS.subscriptions, { useValue: subscriptions });
  const clock = options.clock ?? systemClock;
  const allowPrivate = options.webhooks?.allowPrivateDestinations ?? false;
  const targets = combinedTargets(subscriptionTargets(subscriptions), endpointTargets(options.storage.endpoints, clock, allowPrivate));
  container.register(TOKENS.deliveryTargets, { useValue: targets });
  if (options.webhooks?.transport) container.register(TOKENS.webhookTransport, { useValue: options.webhooks.transport });
}

function registerServices(container: DependencyContainer, options: PlantStoreOptions): void {
  container.register(TOKENS.events, { useFactory: instanceCachingFactory(() => createPlantEventBus()) });
  container.register(TOKENS.plantService, {
    useFactory: instanceCachingFactory(
      (c) =>
        new PlantService({
          plants: c.resolve<Storage>(TOKENS.storage).plants,
          events: c.resolve(TOKENS.events),
          clock: c.resolve(TOKENS.clock),
          logger: c.resolve(TOKENS.logger),
          subscriptions: c.resolve(TOKENS.subscriptions),
          batchSize: options.batchSize,
        }),
    ),
  });
}

function registerWebhooks(container: DependencyContainer, options: PlantStoreOptions): void {
  const {
    subscriptions: _s,
    transport: _t,
    secretOverlapMs: _o,
    allowPrivateDestinations: _a,
    retentionMs: _r,
    pruneIntervalMs: _p,
    maxEndpointsPerTenant: _m,
    ...settings
  } = options.webhooks ?? {};
  container.register(TOKENS.webhookDispatcher, {
    useFactory: instanceCachingFactory(
      (c) =>
        new WebhookDispatcher({
          ...settings,
          outbox: c.resolve<Storage>(TOKENS.storage).outbox,
          endpoints: c.resolve<Storage>(TOKENS.storage).endpoints,
          transport: c.resolve(TOKENS.webhookTransport),
          clock: c.resolve(TOKENS.clock),
          logger: c.resolve(TOKENS.logger),
          events: c.resolve(TOKENS.events),
          targets: c.resolve<DeliveryTargets>(TOKENS.deliveryTargets),
        }),
    ),
  });
  registerWebhookAdmin(container, options.webhooks ?? {});
}

/** The operator's and tenants' webhook tools; validates the endpoint cap at once, so a bad one fails `createPlantStore`. */
function registerWebhookAdmin(container: DependencyContainer, webhooks: PlantStoreWebhookOptions): void {
  const maxEndpoints = positiveInteger('maxEndpointsPerTenant', webhooks.maxEndpointsPerTenant ?? DEFAULT_MAX_ENDPOINTS_PER_TENANT);
  container.register(TOKENS.webhookAdmin, {
    useFactory: instanceCachingFactory((c) => createWebhookAdmin(c, webhooks, maxEndpoints)),
  });
}

/** The operator's webhook tools over the store's storage, with the tenants' self-service on them. */
function createWebhookAdmin(c: DependencyContainer, webhooks: PlantStoreWebhookOptions, maxEndpoints: number): { admin: WebhookAdmin; tenant: TenantWebhooks } {
  const { outbox, endpoints } = c.resolve<Storage>(TOKENS.storage);
  const clock = c.resolve<Clock>(TOKENS.clock);
  const onRequeue = () => dispatcherOf(c)?.wake();
  const events = c.resolve<PlantEventBus>(TOKENS.events);
  const admin = new WebhookAdmin({
    outbox,
    endpoints,
    clock,
    onRequeue,
    retentionMs: retentionOf(webhooks),
    onPruned: (count) => events.emit('webhook.pruned', { count }),
  });
  const tenant: TenantWebhooks = {
    endpoints: new TenantWebhookEndpoints({
      endpoints,
      outbox,
      clock,
      onRequeue,
      onCreate: () => dispatcherOf(c)?.noteEndpointCreated(),
      secretOverlapMs: webhooks.secretOverlapMs ?? DEFAULT_SECRET_OVERLAP_MS,
      maxEndpointsPerTenant: maxEndpoints,
      allowPrivateDestinations: webhooks.allowPrivateDestinations,
    }),
    deliveries: new TenantWebhookDeliveries({ outbox, clock, onRequeue }),
  };
  return { admin, tenant };
}

function positiveInteger(option: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) throw new ConfigurationError(option, `must be a positive integer, got ${value}`);
  return value;
}

/**
 * Per the port contract an authenticator rejects only when its backing
 * service fails: neither yes nor no. A `retryAfterMs` on its error (when the
 * service will be tried again) is passed on, so callers can be told.
 */
function unavailable(cause: unknown): never {
  const retryAfterMs = (cause as { retryAfterMs?: unknown } | undefined)?.retryAfterMs;
  const known = typeof retryAfterMs === 'number' && Number.isFinite(retryAfterMs) && retryAfterMs >= 0;
  throw new AuthenticationUnavailableError(known ? { cause, retryAfterMs } : { cause });
}

/** The dispatcher, when the store has a transport (resolved only then: it is what sends). */
function dispatcherOf(container: DependencyContainer): WebhookDispatcher | undefined {
  return container.isRegistered(TOKENS.webhookTransport) ? container.resolve<WebhookDispatcher>(TOKENS.webhookDispatcher) : undefined;
}

function startDispatcher(container: DependencyContainer, webhooks: PlantStoreWebhookOptions | undefined): WebhookDispatcher | undefined {
  if (!webhooks?.transport) return undefined;
  const dispatcher = container.resolve<WebhookDispatcher>(TOKENS.webhookDispatcher);
  // Event-driven first attempt: wake the dispatcher as soon as a create commits.
  const events = container.resolve<PlantEventBus>(TOKENS.events);
  events.on('plant.created', () => dispatcher.wake());
  events.on('plant.deleted', () => dispatcher.wake());
  dispatcher.start();
  return dispatcher;
}

/** The retention in ms, or `null` when finished deliveries are kept. */
function retentionOf(webhooks: PlantStoreWebhookOptions | undefined): number | null {
  const retentionMs = webhooks?.retentionMs === undefined ? DEFAULT_WEBHOOK_RETENTION_MS : webhooks.retentionMs;
  if (retentionMs !== null && !(Number.isFinite(retentionMs) && retentionMs >= 0)) {
    throw ValidationError.of('webhooks.retentionMs', `must be a duration in ms of 0 or more, or null, got ${String(retentionMs)}`);
  }
  return retentionMs;
}

/**
 * Background retention, started with the dispatcher: a store without a
 * transport (an operator's tool) finishes no delivery and so prunes nothing
 * by itself; `webhooks.prune()` is there for it.
 */
function startPruner(container: DependencyContainer, webhooks: PlantStoreWebhookOptions | undefined): WebhookPruner | undefined {
  const retentionMs = retentionOf(webhooks);
  if (retentionMs === null) return undefined;
  const events = container.resolve<PlantEventBus>(TOKENS.events);
  const pruner = new WebhookPruner({
    outbox: container.resolve<Storage>(TOKENS.storage).outbox,
    clock: container.resolve<Clock>(TOKENS.clock),
    logger: container.resolve<Logger>(TOKENS.logger),
    retentionMs,
    intervalMs: webhooks?.pruneIntervalMs,
    onPruned: (count) => events.emit('webhook.pruned', { count }),
  });
  pruner.start();
  return pruner;
}

function compose(container: DependencyContainer, dispatcher: WebhookDispatcher | undefined, pruner: WebhookPruner | undefined): PlantStore {
  const storage = container.resolve<Storage>(TOKENS.storage);
  const clock = container.resolve<Clock>(TOKENS.clock);
  // Portal links first: their check reads storage only for `psl_` tokens, and leaves every other token to the host's.
  const authenticator = firstAuthenticator(portalLinkAuthenticator(storage.portalLinks, clock), container.resolve<Authenticator>(TOKENS.authenticator));
  // Deliveries queued by other instances on a shared database wake this dispatcher too.
  const unwatch = dispatcher && storage.outbox.watch?.(() => dispatcher.wake());
  let closing: Promise<void> | undefined;
  return {
    plants: container.resolve<PlantService>(TOKENS.plantService),
    events: container.resolve<PlantEventBus>(TOKENS.events),
    webhooks: container.resolve<{ tenant: TenantWebhooks }>(TOKENS.webhookAdmin).tenant,
    allTenants: { webhooks: container.resolve<{ admin: WebhookAdmin }>(TOKENS.webhookAdmin).admin },
    portalLinks: new PortalLinks(storage.portalLinks, clock),
    async authenticate(token) {
      if (token === undefined || token === '') throw new UnauthenticatedError('missing_credentials');
      const principal = await authenticator.authenticate(token).catch(unavailable);
      if (!principal) throw new UnauthenticatedError('invalid_token');
      return principal;
    },
    async ready() {
      try {
        await storage.ping();
      } catch (error) {
        throw error instanceof StorageError ? error : new StorageError('storage is not ready', { cause: error });
      }
    },
    close() {
      closing ??= (async () => {
        unwatch?.();
        await Promise.all([dispatcher?.stop(), pruner?.stop()]);
        await storage.close();
        container.dispose();
      })();
      return closing;
    },
  };
}

/** Validates each subscription (naming its index) and refuses two with one id: deliveries find their subscription by id. */
function validateSubscriptions(input: readonly unknown[]): readonly WebhookSubscription[] {
  const seen = new Map<string, number>();
  const subscriptions = input.map((entry, index) => {
    const subscription = validate(WebhookSubscriptionSchema, entry, `webhooks[${index}]`);
    const first = seen.get(subscription.id);
    if (first !== undefined) {
      throw ValidationError.of(
        `webhooks[${index}].id`,
        `subscription id ${subscription.id} is already used by webhooks[${first}] (without an id, the same url means the same id)`,
      );
    }
    seen.set(subscription.id, index);
    return subscription;
  });
  return Object.freeze(subscriptions);
}

const rejectEveryToken: Authenticator = { authenticate: async () => undefined };
