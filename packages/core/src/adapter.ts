// @plant-store/core/adapter, the door for adapter authors: the ports they implement, and the helpers they share with
// the core so they agree with it (codecs, ids, limits, error constants, the destination policy). Apps need none of it.

export type { Storage } from './ports/storage.js';
export type { AsyncHostTransactionWrites, HostTransactionWrites, SyncHostTransactionWrites } from './ports/host-transaction-writes.js';
export type {
  CreatePlantResult,
  EndpointEvent,
  ListPlantsQuery,
  PlantOffsetQuery,
  PlantRepository,
  PlantsJson,
} from './ports/plant-repository.js';
export type { NewPortalLink, PortalLink, PortalLinkRepository, StoredPortalLink } from './ports/portal-link-repository.js';
export type {
  AttemptOutcome,
  ClaimDueOptions,
  ClaimedDelivery,
  EndpointAttemptStats,
  ListDeliveriesQuery,
  NewDelivery,
  PruneDeliveriesOptions,
  RateBudgetAnswer,
  ReclaimSpaceOptions,
  RequeueSelector,
  StuckLine,
  StuckLineKey,
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
export type { Authenticator } from './ports/authenticator.js';
export { systemClock, type Clock } from './ports/clock.js';
export { silentLogger, type LogFields, type Logger } from './ports/logger.js';

// Codecs: exact int64 ids and JSON that keeps them exact.
export { INT64_MAX, INT64_MIN, int64FromInteger } from './domain/int64.js';
export { parseJson } from './json/json-codec.js';
export { JsonDuplicateKeyError } from './json/json-duplicate-key-error.js';
export { copyPlant, plantColumns, plantToJson, PLANT_CONTENT_IN_WORDS, PLANT_FIELD_NAMES, wordList, type PlantFieldName } from './domain/plant.js';

// Input rules, for adapters that check (or document) input before the core does.
export { validate } from './domain/validate.js';
export { NewPlantSchema } from './domain/plant.js';
export { PLANT_FIELDS, type PlantField } from './domain/plant-fields.js';
export { INT32_MAX, MAX_TAG_FILTERS } from './domain/list-options.js';
export { requireScope } from './service/plant-service.js';
export { plantNotFoundMessage } from './service/plant-writes.js';
export { StaticTokenEntrySchema } from './auth/static-tokens.js';
export { tokenDigest } from './auth/token-digest.js';
export {
  DELIVERY_STATUSES,
  ENDPOINT_DESCRIPTION_MAX_LENGTH,
  ENDPOINT_HEADER_NAME,
  ENDPOINT_HEADER_VALUE,
  ENDPOINT_HEADER_VALUE_MAX_LENGTH,
  ENDPOINT_HEADERS_MAX,
  ENDPOINT_RATE_LIMIT_MAX,
  WEBHOOK_LIST_LIMIT_MAX,
} from './webhooks/endpoints/endpoint-schemas.js';
// Endpoint filters: their limits and operators (documentation), and the match storages run when a write fans out.
export {
  ENDPOINT_FILTER_MAX_BYTES,
  ENDPOINT_FILTER_MAX_DEPTH,
  FILTER_OPERATORS,
  filterEvent,
  filterText,
  matchesFilter,
  parseFilter,
  type FilterEvent,
} from './webhooks/endpoints/endpoint-filter.js';
export { CONNECTION_HEADER_NAMES, RESERVED_HEADER_NAMES } from './webhooks/endpoints/refused-header-names.js';
export { STATS_HOURS } from './webhooks/endpoints/tenant-webhook-endpoints.js';
export { ENDPOINT_URL_MAX_LENGTH } from './webhooks/endpoint-url.js';
export { MIN_SECRET_BYTES, WebhookSubscriptionSchema, subscriptionId } from './webhooks/webhook-subscription.js';

// Ids, error constants and the destination policy storages and transports share with the core.
export { newMessageId } from './webhooks/message-id.js';
export { storableText } from './webhooks/storable-text.js';
export {
  DEFAULT_PARKED_LIMIT,
  ENDPOINT_DELETED_ERROR,
  ENDPOINT_DISABLED_ERROR,
  ENDPOINT_ID_PREFIX,
  isTenantEndpointId,
  PARKED_ACTIONS,
  PARKED_DISCARDED_ERROR,
  parkedLimitOption,
  type ParkedChoice,
} from './webhooks/endpoints/webhook-endpoint.js';
export { hasNonPublicLiteralHost, isPublicAddress, literalHostAddress } from './webhooks/destination-policy.js';
export { destinationKind, parseBrokerDestination, type BrokerDestination } from './webhooks/destination-url.js';
