import { createRequire } from 'node:module';
import type * as Tsyringe from 'tsyringe';
import type { DependencyContainer } from 'tsyringe';
import * as v from 'valibot';
import type { Principal } from '../domain/principal.js';
import { validate } from '../domain/validate.js';
import { AuthenticationUnavailableError, StorageError, UnauthenticatedError, ValidationError } from '../errors.js';
import { createPlantEventBus, type PlantEventBus } from '../events/plant-events.js';
import type { Authenticator } from '../ports/authenticator.js';
import { systemClock, type Clock } from '../ports/clock.js';
import { silentLogger, type Logger } from '../ports/logger.js';
import type { Storage } from '../ports/storage.js';
import type { WebhookTransport } from '../ports/webhook-transport.js';
import { tracedStorage } from '../tracing/traced-storage.js';
import { PlantService } from '../service/plant-service.js';
import { combinedTargets, endpointTargets, subscriptionTargets, type DeliveryTargets } from '../webhooks/delivery-targets.js';
import { TenantWebhookDeliveries } from '../webhooks/endpoints/tenant-webhook-deliveries.js';
import { TenantWebhookEndpoints } from '../webhooks/endpoints/tenant-webhook-endpoints.js';
import { DEFAULT_SECRET_OVERLAP_MS } from '../webhooks/webhook-defaults.js';
import { WebhookAdmin } from '../webhooks/webhook-admin.js';
import { WebhookDispatcher, type WebhookDispatchSettings } from '../webhooks/webhook-dispatcher.js';
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
   * Accept tenant endpoint URLs whose host is a non-public IP literal (`PLANT_STORE_WEBHOOK_ALLOW_PRIVATE`).
   * The transport checks resolved addresses itself: give `webhookHttpTransport` the same setting. @default false
   */
  readonly allowPrivateDestinations?: boolean;
}

/**
 * What a store is made of. Every port is an option: a host replaces the
 * clock, logger, authenticator or webhook transport by passing its own; the
 * store composes them on a container of its own.
 */
export interface PlantStoreOptions {
  /** Where plants and the webhook outbox live. Closed by `PlantStore.close()`. */
  readonly storage: Storage;
  /** Checks bearer tokens for `authenticate`, e.g. `staticTokens([...])`. @default none: every token is rejected */
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

/** A composed store: the service, its events, webhook operator tools, readiness, and the means to authenticate callers. */
export interface PlantStore {
  readonly plants: PlantService;
  readonly events: PlantEventBus;
  readonly webhooks: WebhookAdmin;
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
  return compose(container, dispatcher);
}

function registerPorts(container: DependencyContainer, options: PlantStoreOptions): void {
  const subscriptions = validateSubscriptions(options.webhooks?.subscriptions ?? []);
  container.register(TOKENS.storage, { useValue: options.storage });
  container.register(TOKENS.clock, { useValue: options.clock ?? systemClock });
  container.register(TOKENS.logger, { useValue: options.logger ?? silentLogger });
  container.register(TOKENS.authenticator, { useValue: options.authenticator ?? rejectEveryToken });
  container.register(TOKENS.subscriptions, { useValue: subscriptions });
  const clock = options.clock ?? systemClock;
  const targets = combinedTargets(subscriptionTargets(subscriptions), endpointTargets(options.storage.endpoints, clock));
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
  const { subscriptions: _s, transport: _t, secretOverlapMs, allowPrivateDestinations, ...settings } = options.webhooks ?? {};
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
  container.register(TOKENS.webhookAdmin, {
    useFactory: instanceCachingFactory((c) => {
      const { outbox, endpoints } = c.resolve<Storage>(TOKENS.storage);
      const clock = c.resolve<Clock>(TOKENS.clock);
      const onRequeue = () => dispatcherOf(c)?.wake();
      return new WebhookAdmin({
        outbox,
        clock,
        onRequeue,
        endpoints: new TenantWebhookEndpoints({
          endpoints,
          outbox,
          clock,
          onRequeue,
          onCreate: () => dispatcherOf(c)?.noteEndpointCreated(),
          secretOverlapMs: secretOverlapMs ?? DEFAULT_SECRET_OVERLAP_MS,
          allowPrivateDestinations,
        }),
        deliveries: new TenantWebhookDeliveries({ outbox, clock, onRequeue }),
      });
    }),
  });
}

/** Per the port contract an authenticator rejects only when its backing service fails: neither yes nor no. */
function unavailable(cause: unknown): never {
  throw new AuthenticationUnavailableError({ cause });
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

function compose(container: DependencyContainer, dispatcher: WebhookDispatcher | undefined): PlantStore {
  const storage = container.resolve<Storage>(TOKENS.storage);
  const authenticator = container.resolve<Authenticator>(TOKENS.authenticator);
  // Deliveries queued by other instances on a shared database wake this dispatcher too.
  const unwatch = dispatcher && storage.outbox.watch?.(() => dispatcher.wake());
  let closing: Promise<void> | undefined;
  return {
    plants: container.resolve<PlantService>(TOKENS.plantService),
    events: container.resolve<PlantEventBus>(TOKENS.events),
    webhooks: container.resolve<WebhookAdmin>(TOKENS.webhookAdmin),
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
        await dispatcher?.stop();
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
