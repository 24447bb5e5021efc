import 'reflect-metadata'; // tsyringe's entry needs it loaded first
import { container as rootContainer, instanceCachingFactory, type DependencyContainer, type FactoryProvider, type ValueProvider } from 'tsyringe';
import { createPlantEventBus } from '../events/plant-events.js';
import type { Authenticator } from '../ports/authenticator.js';
import { systemClock } from '../ports/clock.js';
import { silentLogger } from '../ports/logger.js';
import { tracedStorage } from '../tracing/traced-storage.js';
import type { PlantStore, PlantStoreOptions } from './plant-store.js';
import {
  deliveryTargets,
  endpointCache,
  endpoints,
  plantService,
  plantStore,
  portalLinks,
  tenantWebhooks,
  webhookAdmin,
  webhookDispatcher,
  webhookPruner,
} from './store-factories.js';
import { ReplaceableSubscriptions } from './operator-subscriptions.js';
import { storeSettings, type StoreSettings } from './store-settings.js';
import { TOKENS } from './tokens.js';

/** Composes a store from its ports on a private child container (two stores share no state); starts the dispatcher when a transport is given. */
export function createPlantStore(options: PlantStoreOptions): PlantStore {
  const settings = storeSettings(options);
  const container = rootContainer.createChildContainer();
  for (const [token, provider] of registrations(options, settings)) {
    if ('useValue' in provider) container.register(token, provider);
    else container.register(token, provider);
  }
  return container.resolve<PlantStore>(TOKENS.store);
}

/** What a store is made of: each factory resolves its parts by token (order does not matter), made once per store; options replace ports. */
function registrations(options: PlantStoreOptions, settings: StoreSettings): [symbol, ValueProvider<unknown> | FactoryProvider<unknown>][] {
  return [
    // Every storage call is traced from here on (a no-op without an OpenTelemetry SDK).
    [TOKENS.storage, { useValue: tracedStorage(options.storage) }],
    [TOKENS.clock, { useValue: options.clock ?? systemClock }],
    [TOKENS.logger, { useValue: options.logger ?? silentLogger }],
    [TOKENS.authenticator, { useValue: options.authenticator ?? ({ authenticate: async () => undefined } satisfies Authenticator) }],
    // A factory: the container takes no `undefined` value, and without a transport this store queues and sends nothing.
    [TOKENS.webhookTransport, { useFactory: () => options.webhooks?.transport }],
    [TOKENS.settings, { useValue: settings }],
    [TOKENS.subscriptions, { useValue: new ReplaceableSubscriptions(settings.subscriptions) }],
    [TOKENS.events, once(() => createPlantEventBus())],
    [TOKENS.plantService, once(plantService)],
    [TOKENS.endpointCache, once(endpointCache)],
    [TOKENS.endpoints, once(endpoints)],
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
