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
  ConfigurationError,
  ConflictError,
  ForbiddenError,
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

export type { Authenticator } from './ports/authenticator.js';
export { systemClock, type Clock } from './ports/clock.js';
export { silentLogger, type LogFields, type Logger } from './ports/logger.js';
export type {
  CreatePlantResult,
  ListPlantsQuery,
  PlantOffsetQuery,
  PlantRepository,
} from './ports/plant-repository.js';
export type { Storage } from './ports/storage.js';
export type {
  AttemptOutcome,
  ClaimDueOptions,
  ClaimedDelivery,
  Delivery,
  DeliveryAttempt,
  DeliveryStatus,
  ListDeliveriesQuery,
  NewDelivery,
  PendingStats,
  WebhookOutbox,
} from './ports/webhook-outbox.js';
export type { WebhookRequest, WebhookResponse, WebhookTransport } from './ports/webhook-transport.js';

export { PlantService, requireScope, type CreatePlantOutcome, type PlantServiceOptions } from './service/plant-service.js';
export { collectListing, type PlantListing } from './service/plant-listing.js';
export {
  createPlantEventBus,
  type PlantEventBus,
  type PlantEvents,
  type WebhookAttemptOutcome,
} from './events/plant-events.js';

export { StaticTokenEntrySchema, staticTokens, type StaticTokenEntry } from './auth/static-tokens.js';
export { tokenDigest } from './auth/token-digest.js';

export { WebhookAdmin } from './webhooks/webhook-admin.js';
export {
  DEFAULT_RETRY_SCHEDULE,
  DEFAULT_USER_AGENT,
  WebhookDispatcher,
  type WebhookDispatcherOptions,
} from './webhooks/webhook-dispatcher.js';
export {
  MIN_SECRET_BYTES,
  WebhookSubscriptionSchema,
  secretKey,
  subscriptionMatches,
  type WebhookSubscription,
} from './webhooks/webhook-subscription.js';
export { signWebhook, type SignWebhookInput } from './webhooks/webhook-signature.js';

export {
  createPlantStore,
  type PlantStore,
  type PlantStoreOptions,
  type PlantStoreWebhookOptions,
} from './composition/create-plant-store.js';
