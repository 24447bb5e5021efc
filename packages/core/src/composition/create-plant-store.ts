import { createRequire } from 'node:module';
import type * as Tsyringe from 'tsyringe';
import type { DependencyContainer } from 'tsyringe';
import type { Principal } from '../domain/principal.js';
import { validate } from '../domain/validate.js';
import * as v from 'valibot';
import { UnauthenticatedError } from '../errors.js';
import { createPlantEventBus, type PlantEventBus } from '../events/plant-events.js';
import type { Authenticator } from '../ports/authenticator.js';
import { systemClock, type Clock } from '../ports/clock.js';
import { silentLogger, type Logger } from '../ports/logger.js';
import type { Storage } from '../ports/storage.js';
import type { WebhookTransport } from '../ports/webhook-transport.js';
import { PlantService } from '../service/plant-service.js';
import { WebhookAdmin } from '../webhooks/webhook-admin.js';
import { WebhookDispatcher, type WebhookDispatcherOptions } from '../webhooks/webhook-dispatcher.js';
import { WebhookSubscriptionSchema, type WebhookSubscription } from '../webhooks/webhook-subscription.js';
import { TOKENS } from './tokens.js';

// tsyringe (and the reflect-metadata polyfill it requires first) are
// CommonJS. Imported from ESM, Node 20 scans every file they re-export for
// named exports, which makes loading them take twice as long (about 15 ms of
// the service's start-up); required, they load as plain CommonJS.
const require = createRequire(import.meta.url);
require('reflect-metadata');
const { container: rootContainer, instanceCachingFactory } = require('tsyringe') as typeof Tsyringe;

export interface PlantStoreWebhookOptions
  extends Partial<Omit<WebhookDispatcherOptions, 'outbox' | 'transport' | 'clock' | 'logger' | 'subscriptions' | 'events'>> {
  /** Who receives "New Plant". Validated: a bad url or secret is a `ValidationError` naming the entry. @default [] */
  readonly subscriptions?: readonly v.InferInput<typeof WebhookSubscriptionSchema>[];
  /** How deliveries are sent. Without one, deliveries are queued (durably) but this store sends nothing. */
  readonly transport?: WebhookTransport;
}

export interface PlantStoreOptions {
  /** Where plants and the webhook outbox live. Closed by `PlantStore.close()`. */
  readonly storage: Storage;
  /** Checks bearer tokens for `authenticate`. @default none: every token is rejected */
  readonly authenticator?: Authenticator;
  /** @default the system clock */
  readonly clock?: Clock;
  /** @default a logger that drops everything */
  readonly logger?: Logger;
  readonly webhooks?: PlantStoreWebhookOptions;
  /** Plants read per storage round trip when streaming a listing. @default 500 */
  readonly batchSize?: number;
}

/** A composed store: the service, its events, webhook operator tools, and the means to authenticate callers. */
export interface PlantStore {
  readonly plants: PlantService;
  readonly events: PlantEventBus;
  readonly webhooks: WebhookAdmin;
  readonly storage: Storage;
  /** The principal for a bearer token; `UnauthenticatedError` when it is missing or unknown. */
  authenticate(token: string | undefined): Promise<Principal>;
  /** Stops the webhook dispatcher (letting in-flight attempts finish), then closes storage. Idempotent. */
  close(): Promise<void>;
}

/**
 * Composes a store from its ports on a private child container, so two
 * stores in one process share no state. Starts the webhook dispatcher when a
 * transport is given.
 */
export function createPlantStore(options: PlantStoreOptions): PlantStore {
  const container = rootContainer.createChildContainer();
  const subscriptions: readonly WebhookSubscription[] = Object.freeze(
    (options.webhooks?.subscriptions ?? []).map((subscription, index) =>
      validate(WebhookSubscriptionSchema, subscription, `webhooks[${index}]`),
    ),
  );

  container.register(TOKENS.storage, { useValue: options.storage });
  container.register(TOKENS.clock, { useValue: options.clock ?? systemClock });
  container.register(TOKENS.logger, { useValue: options.logger ?? silentLogger });
  container.register(TOKENS.subscriptions, { useValue: subscriptions });
  container.register(TOKENS.events, { useFactory: instanceCachingFactory(() => createPlantEventBus()) });
  container.register(TOKENS.plantService, {
    useFactory: instanceCachingFactory(
      (c) =>
        new PlantService(
          c.resolve<Storage>(TOKENS.storage).plants,
          c.resolve(TOKENS.events),
          c.resolve(TOKENS.clock),
          c.resolve(TOKENS.logger),
          c.resolve(TOKENS.subscriptions),
          { batchSize: options.batchSize },
        ),
    ),
  });
  const transport = options.webhooks?.transport;
  if (transport) {
    container.register(TOKENS.webhookDispatcher, {
      useFactory: instanceCachingFactory(
        (c) =>
          new WebhookDispatcher({
            ...options.webhooks,
            outbox: c.resolve<Storage>(TOKENS.storage).outbox,
            transport,
            clock: c.resolve(TOKENS.clock),
            logger: c.resolve(TOKENS.logger),
            subscriptions: c.resolve(TOKENS.subscriptions),
            events: c.resolve(TOKENS.events),
          }),
      ),
    });
  }
  container.register(TOKENS.webhookAdmin, {
    useFactory: instanceCachingFactory(
      (c) =>
        new WebhookAdmin(c.resolve<Storage>(TOKENS.storage).outbox, c.resolve(TOKENS.clock), () => dispatcher?.wake()),
    ),
  });

  const dispatcher = transport ? container.resolve<WebhookDispatcher>(TOKENS.webhookDispatcher) : undefined;
  const events = container.resolve<PlantEventBus>(TOKENS.events);
  if (dispatcher) {
    // Event-driven first attempt: wake the dispatcher as soon as a create commits.
    events.on('plant.created', () => dispatcher.wake());
    dispatcher.start();
  }
  return compose(container, options.authenticator, dispatcher);
}

function compose(
  container: DependencyContainer,
  authenticator: Authenticator | undefined,
  dispatcher: WebhookDispatcher | undefined,
): PlantStore {
  const storage = container.resolve<Storage>(TOKENS.storage);
  let closing: Promise<void> | undefined;
  return {
    plants: container.resolve<PlantService>(TOKENS.plantService),
    events: container.resolve<PlantEventBus>(TOKENS.events),
    webhooks: container.resolve<WebhookAdmin>(TOKENS.webhookAdmin),
    storage,
    async authenticate(token) {
      if (token === undefined || token === '') throw new UnauthenticatedError('missing_credentials');
      const principal = authenticator ? await authenticator.authenticate(token) : undefined;
      if (!principal) throw new UnauthenticatedError('invalid_token');
      return principal;
    },
    close() {
      closing ??= (async () => {
        await dispatcher?.stop();
        await storage.close();
        container.dispose();
      })();
      return closing;
    },
  };
}
