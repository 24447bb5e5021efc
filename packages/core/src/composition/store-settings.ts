import { ConfigurationError, ValidationError } from '../errors.js';
import { DESTINATION_KINDS } from '../webhooks/destination-url.js';
import {
  DEFAULT_ENDPOINT_CACHE_MS,
  DEFAULT_MAX_ENDPOINTS_PER_TENANT,
  DEFAULT_SECRET_OVERLAP_MS,
  DEFAULT_WEBHOOK_RETENTION_MS,
} from '../webhooks/webhook-defaults.js';
import type { WebhookDispatchSettings } from '../webhooks/dispatcher-options.js';
import { validateSubscriptions } from '../webhooks/webhook-subscription.js';
import type { PlantStoreOptions } from './plant-store.js';

export type StoreSettings = ReturnType<typeof storeSettings>;

/** A store's options, checked and defaulted once, before anything is made: a bad one fails `createPlantStore` with nothing started. */
export function storeSettings(options: PlantStoreOptions) {
  const {
    subscriptions,
    transport: _transport,
    secretOverlapMs,
    allowPrivateDestinations,
    endpointDestinationKinds = ['http'],
    retentionMs = DEFAULT_WEBHOOK_RETENTION_MS,
    pruneIntervalMs,
    maxEndpointsPerTenant = DEFAULT_MAX_ENDPOINTS_PER_TENANT,
    endpointCacheMs = DEFAULT_ENDPOINT_CACHE_MS,
    ...dispatch
  } = options.webhooks ?? {};
  if (!Number.isSafeInteger(maxEndpointsPerTenant) || maxEndpointsPerTenant < 1) {
    throw new ConfigurationError('maxEndpointsPerTenant', `must be a positive integer, got ${maxEndpointsPerTenant}`);
  }
  if (retentionMs !== null && !(Number.isFinite(retentionMs) && retentionMs >= 0)) {
    throw ValidationError.of('webhooks.retentionMs', `must be a duration in ms of 0 or more, or null, got ${String(retentionMs)}`);
  }
  if (!(Number.isFinite(endpointCacheMs) && endpointCacheMs >= 0)) {
    throw new ConfigurationError('endpointCacheMs', `must be a duration in ms of 0 or more, got ${String(endpointCacheMs)}`);
  }
  const unknownKind = endpointDestinationKinds.find((kind) => !DESTINATION_KINDS.includes(kind));
  if (unknownKind !== undefined) {
    throw new ConfigurationError('endpointDestinationKinds', `must list kinds among ${DESTINATION_KINDS.join(', ')}, got ${String(unknownKind)}`);
  }
  return {
    subscriptions: validateSubscriptions(subscriptions ?? []),
    maxEndpointsPerTenant,
    endpointCacheMs,
    retentionMs,
    pruneIntervalMs,
    secretOverlapMs: secretOverlapMs ?? DEFAULT_SECRET_OVERLAP_MS,
    allowPrivateDestinations: allowPrivateDestinations ?? false,
    endpointDestinationKinds: Object.freeze([...endpointDestinationKinds]),
    // What the dispatcher is given as it is (retry schedule, timeouts, concurrency, …).
    dispatch: dispatch as WebhookDispatchSettings,
    batchSize: options.batchSize,
  };
}
