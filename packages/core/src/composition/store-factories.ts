import type { DependencyContainer } from 'tsyringe';
import type { Principal } from '../domain/principal.js';
import { AuthenticationUnavailableError, ConfigurationError, StorageError, UnauthenticatedError, withoutStack, type UnauthenticatedReason } from '../errors.js';
import type { PlantEventBus } from '../events/plant-events.js';
import type { Authenticator } from '../ports/authenticator.js';
import type { Clock } from '../ports/clock.js';
import type { Logger } from '../ports/logger.js';
import type { HostTransactionWrites } from '../ports/host-transaction-writes.js';
import type { Storage } from '../ports/storage.js';
import type { WebhookEndpointRepository } from '../ports/webhook-endpoint-repository.js';
import type { WebhookTransport } from '../ports/webhook-transport.js';
import { firstAuthenticator } from '../auth/first-authenticator.js';
import { portalLinkAuthenticator } from '../portal/portal-link-authenticator.js';
import { parsePortalLinkToken } from '../portal/portal-link-token.js';
import { PortalLinks } from '../portal/portal-links.js';
import { PlantService } from '../service/plant-service.js';
import { endpointTargets, type DeliveryTargets } from '../webhooks/delivery-targets.js';
import { EndpointCache, forgettingChanges } from '../webhooks/endpoint-cache.js';
import { isTenantEndpointId } from '../webhooks/endpoints/webhook-endpoint.js';
import { TenantWebhookDeliveries } from '../webhooks/endpoints/tenant-webhook-deliveries.js';
import { TenantWebhookEndpoints } from '../webhooks/endpoints/tenant-webhook-endpoints.js';
import { WebhookAdmin } from '../webhooks/webhook-admin.js';
import { OperationalEvents } from '../webhooks/operational-events.js';
import { WebhookDispatcher } from '../webhooks/webhook-dispatcher.js';
import { WebhookPruner } from '../webhooks/webhook-pruner.js';
import type { PlantStore, TenantWebhooks } from './plant-store.js';
import type { ReplaceableSubscriptions } from './operator-subscriptions.js';
import type { StoreSettings } from './store-settings.js';
import { TOKENS } from './tokens.js';

// How each part of a store is made from the parts it resolves; each is called once per store (see `createPlantStore`).

const storage = (c: DependencyContainer) => c.resolve<Storage>(TOKENS.storage);
const clock = (c: DependencyContainer) => c.resolve<Clock>(TOKENS.clock);
const logger = (c: DependencyContainer) => c.resolve<Logger>(TOKENS.logger);
const events = (c: DependencyContainer) => c.resolve<PlantEventBus>(TOKENS.events);
const settings = (c: DependencyContainer) => c.resolve<StoreSettings>(TOKENS.settings);
const dispatcher = (c: DependencyContainer) => c.resolve<WebhookDispatcher | undefined>(TOKENS.webhookDispatcher);
const subscriptions = (c: DependencyContainer) => c.resolve<ReplaceableSubscriptions>(TOKENS.subscriptions);
const cache = (c: DependencyContainer) => c.resolve<EndpointCache>(TOKENS.endpointCache);
/** Tenants' endpoints as this store changes them: each change reaches the dispatcher's cache before its caller hears of it. */
const changingEndpoints = (c: DependencyContainer) => c.resolve<WebhookEndpointRepository>(TOKENS.endpoints);
/** Emits `webhook.pruned` with each pruned batch's count, whether the pruner or an operator pruned. */
const prunedEvent = (c: DependencyContainer) => {
  const bus = events(c);
  return (count: number) => bus.emit('webhook.pruned', { count });
};

export function plantService(c: DependencyContainer): PlantService {
  const current = subscriptions(c);
  const { batchSize } = settings(c);
  return new PlantService({ plants: storage(c).plants, events: events(c), clock: clock(c), logger: logger(c), subscriptions: () => current.list, batchSize });
}

/** The tenant endpoints the dispatcher read, kept a short while (see EndpointCache). */
export function endpointCache(c: DependencyContainer): EndpointCache {
  return new EndpointCache(storage(c).endpoints, clock(c), settings(c).endpointCacheMs);
}

/** The storage's endpoints, each change forgotten by the cache. */
export function endpoints(c: DependencyContainer): WebhookEndpointRepository {
  return forgettingChanges(storage(c).endpoints, cache(c));
}

/** Where deliveries go: tenants' endpoints (`ep_`, through the cache), and the operator's subscriptions as they are at each attempt (`ids`: theirs). */
export function deliveryTargets(c: DependencyContainer): DeliveryTargets {
  const current = subscriptions(c);
  const endpoints = endpointTargets(cache(c), clock(c), settings(c).allowPrivateDestinations, storage(c).endpoints);
  return {
    resolve: (delivery) => (isTenantEndpointId(delivery.endpointId) ? endpoints : current.targets).resolve(delivery),
    get ids() {
      return current.targets.ids;
    },
  };
}

/** The dispatcher, when the store has a transport (it is what sends); `undefined` without one. Made, not started. */
export function webhookDispatcher(c: DependencyContainer): WebhookDispatcher | undefined {
  const transport = c.resolve<WebhookTransport | undefined>(TOKENS.webhookTransport);
  if (!transport) return undefined;
  const { outbox } = storage(c);
  const endpoints = changingEndpoints(c);
  const current = subscriptions(c);
  const operationalEvents = new OperationalEvents({ outbox, endpoints, subscriptions: () => current.list, clock: clock(c) });
  return new WebhookDispatcher({
    ...settings(c).dispatch,
    outbox,
    endpoints,
    transport,
    clock: clock(c),
    logger: logger(c),
    events: events(c),
    targets: c.resolve<DeliveryTargets>(TOKENS.deliveryTargets),
    operationalEvents,
  });
}

/** Background retention, with the dispatcher only: a store without a transport finishes nothing (`allTenants.webhooks.prune()` serves it). Made, not started. */
export function webhookPruner(c: DependencyContainer): WebhookPruner | undefined {
  const { retentionMs, pruneIntervalMs } = settings(c);
  if (!dispatcher(c) || retentionMs === null) return undefined;
  return new WebhookPruner({
    outbox: storage(c).outbox,
    clock: clock(c),
    logger: logger(c),
    retentionMs,
    intervalMs: pruneIntervalMs,
    onPruned: prunedEvent(c),
  });
}

/** The operator's tools across tenants; a re-queue wakes this store's dispatcher, if it has one. */
export function webhookAdmin(c: DependencyContainer): WebhookAdmin {
  const { outbox } = storage(c);
  const endpoints = changingEndpoints(c);
  const wake = dispatcher(c);
  return new WebhookAdmin({
    outbox,
    endpoints,
    clock: clock(c),
    onRequeue: () => wake?.wake(),
    slowEndpoints: () => wake?.slowEndpoints() ?? [],
    retentionMs: settings(c).retentionMs,
    onPruned: prunedEvent(c),
    logger: logger(c),
  });
}

export function tenantWebhooks(c: DependencyContainer): TenantWebhooks {
  const { outbox } = storage(c);
  const endpoints = changingEndpoints(c);
  const { secretOverlapMs, maxEndpointsPerTenant, allowPrivateDestinations, endpointDestinationKinds } = settings(c);
  const wake = dispatcher(c);
  const onRequeue = () => wake?.wake();
  return {
    endpoints: new TenantWebhookEndpoints({
      endpoints,
      outbox,
      clock: clock(c),
      onRequeue,
      onCreate: () => wake?.noteEndpointCreated(),
      secretOverlapMs,
      maxEndpointsPerTenant,
      allowPrivateDestinations,
      destinationKinds: endpointDestinationKinds,
    }),
    deliveries: new TenantWebhookDeliveries({ outbox, clock: clock(c), onRequeue }),
  };
}

export function portalLinks(c: DependencyContainer): PortalLinks {
  return new PortalLinks(storage(c).portalLinks, clock(c));
}

/** The store: starts what runs in the background (the dispatcher, woken by writes here and elsewhere, and the pruner), and stops it on `close()`. */
export function plantStore(c: DependencyContainer): PlantStore {
  // Held here, not resolved later: `ready()` still answers (rejects) after `close()` disposed the container.
  const stored = storage(c);
  const sending = dispatcher(c);
  if (sending) {
    // Event-driven first attempt: wake the dispatcher as soon as a write commits.
    events(c).on('plant.created', () => sending.wake());
    events(c).on('plant.deleted', () => sending.wake());
    sending.start();
  }
  const pruner = c.resolve<WebhookPruner | undefined>(TOKENS.webhookPruner);
  pruner?.start();
  // Deliveries queued by other instances on a shared database wake this dispatcher too.
  const unwatch = sending && stored.outbox.watch?.(() => sending.wake());
  // Endpoints changed by other instances are read again at their next attempt.
  const kept = cache(c);
  const unwatchEndpoints = sending && stored.endpoints.watch?.((id) => kept.forget(id));
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      unwatch?.();
      unwatchEndpoints?.();
      await Promise.all([sending?.stop(), pruner?.stop()]);
      await stored.close();
      c.dispose();
    })();
    return closing;
  };
  const plants = c.resolve<PlantService>(TOKENS.plantService);
  return {
    plants,
    inTransaction: (executor) => plants.inTransaction(joinTransaction(stored, executor)),
    events: events(c),
    webhooks: c.resolve(TOKENS.tenantWebhooks),
    allTenants: { webhooks: c.resolve(TOKENS.webhookAdmin), portalLinks: c.resolve(TOKENS.portalLinks), subscriptions: subscriptions(c) },
    authenticate: authenticate(c),
    ready: () => ready(stored),
    close,
  };
}

/** Only a token shaped like a portal link's (`psl_…`) is looked up among the links (then the host's); every other goes straight to the host's authenticator. */
function authenticate(c: DependencyContainer): PlantStore['authenticate'] {
  const host = c.resolve<Authenticator>(TOKENS.authenticator);
  const linksThenHost = firstAuthenticator(portalLinkAuthenticator(storage(c).portalLinks, clock(c)), host);
  return (token) => {
    if (token === undefined || token === '') return Promise.reject(unauthenticated('missing_credentials'));
    const authenticator = parsePortalLinkToken(token) === undefined ? host : linksThenHost;
    // In a promise's executor: an authenticator that throws instead of rejecting fails the same way.
    const principal = new Promise<Principal | undefined>((resolve) => resolve(authenticator.authenticate(token)));
    return principal.then((known) => known ?? Promise.reject(unauthenticated('invalid_token')), unavailable);
  };
}

// Expected outcomes, answered as 401: no stack trace (see withoutStack).
function unauthenticated(reason: UnauthenticatedReason): UnauthenticatedError {
  return withoutStack(() => new UnauthenticatedError(reason));
}

function joinTransaction(storage: Storage, executor: unknown): HostTransactionWrites {
  if (!storage.joinTransaction) throw new ConfigurationError('storage', 'this storage cannot join a host transaction (SQLite and PostgreSQL storage can)');
  return storage.joinTransaction(executor);
}

async function ready(storage: Storage): Promise<void> {
  try {
    await storage.ping();
  } catch (error) {
    throw error instanceof StorageError ? error : new StorageError('storage is not ready', { cause: error });
  }
}

/** An authenticator rejects only when its backing service fails (neither yes nor no); its error's `retryAfterMs` is passed on. */
function unavailable(cause: unknown): never {
  const retryAfterMs = (cause as { retryAfterMs?: unknown } | undefined)?.retryAfterMs;
  const known = typeof retryAfterMs === 'number' && Number.isFinite(retryAfterMs) && retryAfterMs >= 0;
  throw new AuthenticationUnavailableError(known ? { cause, retryAfterMs } : { cause });
}
