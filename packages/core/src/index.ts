// @plant-store/core, the door for apps: compose a store, call it, catch its errors, listen to its events. What adapter
// authors need (ports, codecs, ids, limits) is behind `@plant-store/core/adapter`, so an app sees only its own.

export { createPlantStore } from './composition/create-plant-store.js';
export type { PlantStore, PlantStoreOptions, PlantStoreWebhookOptions, AllTenants, TenantWebhooks } from './composition/plant-store.js';

// What the store's members are and return (types only: the store makes them).
export type { NewPlant, Plant } from './domain/plant.js';
export type { ListPlantsInput } from './domain/list-options.js';
export { ALL_SCOPES, type Principal, type Scope } from './domain/principal.js';
export type { PlantService } from './service/plant-service.js';
export type { CreatePlantOutcome } from './service/plant-writes.js';
export type { HostTransaction, TransactionPlants } from './service/host-transaction.js';
export { collectListing, type PlantListing, type PlantPageJson } from './service/plant-listing.js';
export type { PlantEventBus, PlantEvents, WebhookAttemptOutcome } from './events/plant-events.js';
export type { PortalLinks, MintPortalLinkOptions, MintedPortalLink } from './portal/portal-links.js';
export type { PruneOptions, QueueDelay, WebhookAdmin } from './webhooks/webhook-admin.js';
export type { OperatorSubscriptions, SubscriptionChanges } from './composition/operator-subscriptions.js';
export type {
  EndpointHourStats,
  EndpointStats,
  EndpointWindowStats,
  FilterCheck,
  TenantWebhookEndpoints,
} from './webhooks/endpoints/tenant-webhook-endpoints.js';
export type { EndpointFilter } from './webhooks/endpoints/endpoint-filter.js';
export type { TenantWebhookDeliveries } from './webhooks/endpoints/tenant-webhook-deliveries.js';
export type { Delivery, DeliveryAttempt, DeliveryStatus, PendingStats, StuckLine, StuckLineKey } from './ports/webhook-outbox.js';
export {
  DEFAULT_PARKED_LIMIT,
  ENDPOINT_ORDERINGS,
  WEBHOOK_EVENT_TYPES,
  newEndpointSecret, // a new `whsec_` signing secret, e.g. for a subscription of `webhooks.subscriptions`
  type DeliveryPage,
  type EndpointOrdering,
  type EndpointPage,
  type ParkedChoice,
  type WebhookEndpoint,
  type WebhookEndpointStatus,
  type WebhookEventType,
} from './webhooks/endpoints/webhook-endpoint.js';
export { WEBHOOK_EVENT_CATALOGUE, type WebhookEventDescription } from './webhooks/endpoints/webhook-event-catalogue.js';
export type { WebhookSubscription } from './webhooks/webhook-subscription.js';
export { DESTINATION_KINDS, maskUrlCredentials, type DestinationKind } from './webhooks/destination-url.js';
export type { WebhookDispatchSettings } from './webhooks/dispatcher-options.js';

export {
  AuthenticationUnavailableError,
  ConfigurationError,
  ConflictError,
  ForbiddenError,
  LimitExceededError,
  NotFoundError,
  PlantStoreError,
  StorageError,
  UnauthenticatedError,
  ValidationError,
  type PlantStoreErrorCode,
  type UnauthenticatedReason,
  type ValidationIssue,
} from './errors.js';

// Authenticators a host composes for `createPlantStore({ authenticator })`.
export { firstAuthenticator } from './auth/first-authenticator.js';
export { staticTokens, type StaticTokenEntry } from './auth/static-tokens.js';

// Defaults of the options, for hosts that show or derive their settings.
export {
  DEFAULT_ATTEMPT_TIMEOUT_MS,
  DEFAULT_DISABLE_AFTER_MS,
  DEFAULT_MAX_ENDPOINTS_PER_TENANT,
  DEFAULT_RETRY_SCHEDULE,
  DEFAULT_SECRET_OVERLAP_MS,
  DEFAULT_WEBHOOK_RETENTION_MS,
} from './webhooks/webhook-defaults.js';
export { DEFAULT_PORTAL_LINK_TTL_MS, MAX_PORTAL_LINK_TTL_MS } from './portal/portal-links.js';
