// Public API of @plant-store/core. Everything a host app or an adapter needs is listed here.

export { INT64_MAX, INT64_MIN, int64FromInteger } from './domain/int64.js';
export {
  NewPlantSchema,
  PLANT_NAME_MAX_LENGTH,
  PLANT_TAG_MAX_LENGTH,
  PlantIdSchema,
  PlantNameSchema,
  PlantTagSchema,
  int64Schema,
  plantToJson,
  samePlant,
  type NewPlant,
  type Plant,
} from './domain/plant.js';
export {
  INT32_MAX,
  ListPlantsOptionsSchema,
  MAX_TAG_FILTERS,
  type ListPlantsInput,
  type ListPlantsOptions,
} from './domain/list-options.js';
export { ALL_SCOPES, type Principal, type Scope } from './domain/principal.js';
export { validate } from './domain/validate.js';

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

export { isInexactNumber, parseJson, stringifyJson, type InexactNumber } from './json/json-codec.js';
export { JsonDuplicateKeyError } from './json/json-duplicate-key-error.js';

export type { Authenticator } from './ports/authenticator.js';
export { systemClock, type Clock } from './ports/clock.js';
export { silentLogger, type LogFields, type Logger } from './ports/logger.js';
export type {
  CreatePlantResult,
  EndpointEvent,
  ListPlantsQuery,
  PlantOffsetQuery,
  PlantsJson,
  PlantRepository,
} from './ports/plant-repository.js';
export type { Storage } from './ports/storage.js';
export type { NewPortalLink, PortalLink, PortalLinkRepository, StoredPortalLink } from './ports/portal-link-repository.js';
export type {
  AttemptOutcome,
  ClaimDueOptions,
  ClaimedDelivery,
  Delivery,
  DeliveryAttempt,
  DeliveryStatus,
  EndpointAttemptStats,
  ListDeliveriesQuery,
  NewDelivery,
  TenantDeliveriesQuery,
  PendingStats,
  PruneDeliveriesOptions,
  RateBudgetAnswer,
  WebhookOutbox,
} from './ports/webhook-outbox.js';
export type {
  EndpointAttemptNote,
  EndpointHealth,
  EndpointSecrets,
  EndpointWithSecrets,
  ListEndpointsQuery,
  NewWebhookEndpoint,
  WebhookEndpointChanges,
  WebhookEndpointRepository,
} from './ports/webhook-endpoint-repository.js';
export { ATTEMPT_RESPONSE_MAX_BYTES, type WebhookRequest, type WebhookSendOutcome, type WebhookTransport } from './ports/webhook-transport.js';

export { PlantService, requireScope, type CreatePlantOutcome, type PlantServiceOptions } from './service/plant-service.js';
export { collectListing, type PlantListing, type PlantPageJson } from './service/plant-listing.js';
export {
  createPlantEventBus,
  type PlantEventBus,
  type PlantEvents,
  type WebhookAttemptOutcome,
} from './events/plant-events.js';

export { firstAuthenticator } from './auth/first-authenticator.js';
export { StaticTokenEntrySchema, staticTokens, type StaticTokenEntry } from './auth/static-tokens.js';
export { tokenDigest } from './auth/token-digest.js';
export {
  DEFAULT_PORTAL_LINK_TTL_MS,
  MAX_PORTAL_LINK_TTL_MS,
  MintPortalLinkSchema,
  PortalLinks,
  type MintPortalLinkOptions,
  type MintedPortalLink,
} from './portal/portal-links.js';
export { PORTAL_LINK_TOKEN_PREFIX } from './portal/portal-link-token.js';

export { WebhookAdmin, type PruneOptions, type WebhookAdminOptions } from './webhooks/webhook-admin.js';
export {
  DEFAULT_ATTEMPT_TIMEOUT_MS,
  DEFAULT_DISABLE_AFTER_MS,
  DEFAULT_MAX_ENDPOINTS_PER_TENANT,
  DEFAULT_RETRY_SCHEDULE,
  DEFAULT_SECRET_OVERLAP_MS,
  DEFAULT_WEBHOOK_RETENTION_MS,
} from './webhooks/webhook-defaults.js';
export {
  TenantWebhookEndpoints,
  type EndpointStats,
  type EndpointWindowStats,
  type TenantWebhookEndpointsOptions,
} from './webhooks/endpoints/tenant-webhook-endpoints.js';
export { TenantWebhookDeliveries, type TenantWebhookDeliveriesOptions } from './webhooks/endpoints/tenant-webhook-deliveries.js';
export {
  ENDPOINT_DESCRIPTION_MAX_LENGTH,
  ENDPOINT_RATE_LIMIT_MAX,
  ListDeliveriesOptionsSchema,
  ListEndpointsOptionsSchema,
  RecoverSchema,
  RotateSecretSchema,
  SendTestSchema,
  WEBHOOK_LIST_LIMIT_MAX,
  endpointPatchSchema,
  newEndpointSchema,
} from './webhooks/endpoints/endpoint-schemas.js';
export {
  WEBHOOK_EVENT_CATALOGUE,
  webhookEventDescription,
  type WebhookEventDescription,
} from './webhooks/endpoints/webhook-event-catalogue.js';
export type { WebhookDispatchSettings } from './webhooks/webhook-dispatcher.js';
export { hasNonPublicLiteralHost, isPublicAddress, literalHostAddress } from './webhooks/destination-policy.js';
export {
  ENDPOINT_URL_MAX_LENGTH,
  endpointUrlProblem,
  endpointUrlSchema,
  type EndpointUrlOptions,
} from './webhooks/endpoint-url.js';
export {
  MIN_SECRET_BYTES,
  WebhookSubscriptionSchema,
  subscriptionId,
  webhookSecretSchema,
  type WebhookSubscription,
} from './webhooks/webhook-subscription.js';
export { signWebhook, type SignWebhookInput } from './webhooks/webhook-signature.js';
export { newMessageId } from './webhooks/message-id.js';
export {
  DISABLED_BY_TENANT,
  ENDPOINT_DELETED_ERROR,
  ENDPOINT_DISABLED_ERROR,
  ENDPOINT_ID_PREFIX,
  WEBHOOK_EVENT_TYPES,
  isTenantEndpointId,
  newEndpointId,
  newEndpointSecret,
  type DeliveryPage,
  type EndpointPage,
  type WebhookEndpoint,
  type WebhookEndpointStatus,
  type WebhookEventType,
} from './webhooks/endpoints/webhook-endpoint.js';

export {
  createPlantStore,
  type PlantStore,
  type PlantStoreOptions,
  type PlantStoreWebhookOptions,
} from './composition/create-plant-store.js';
