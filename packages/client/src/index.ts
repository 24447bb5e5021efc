// Public API of @plant-store/client. No Node built-ins: it runs wherever fetch and WebCrypto do.

export { createPlantStoreClient, type PlantStoreClient } from './create-plant-store-client.js';
export type { CallOptions, PlantStoreClientOptions } from './http-transport.js';
export { parseJson } from './json-codec.js';
export type { NewPlant, Plant } from './plant.js';
export type { PlantIdInput } from './plant-id.js';
export type { ListPlantsOptions, ListPlantsQuery, PlantPage, PlantsClient } from './plants-client.js';

export {
  ConflictError,
  ForbiddenError,
  LimitExceededError,
  NotFoundError,
  PlantStoreClientError,
  RequestFailedError,
  UnauthenticatedError,
  UnavailableError,
  ValidationError,
  type PlantStoreClientErrorCode,
  type PlantStoreClientErrorInit,
  type UnauthenticatedReason,
} from './errors.js';

export type {
  DeliveryFailedPayload,
  EndpointDisabledPayload,
  ListWebhookDeliveriesQuery,
  ListWebhookEndpointsQuery,
  NewWebhookEndpoint,
  PlantDeletedPayload,
  WebhookAttempt,
  WebhookDeliveriesClient,
  WebhookDelivery,
  WebhookDeliveryPage,
  WebhookDeliveryStatus,
  WebhookEndpoint,
  WebhookEndpointFilter,
  WebhookEndpointOrdering,
  WebhookDestinationKind,
  WebhookEndpointPage,
  WebhookEndpointsClient,
  WebhookEndpointStats,
  WebhookEndpointStatus,
  WebhookEndpointUpdate,
  WebhookEndpointWithSecret,
  WebhookEventType,
  WebhookEventTypeInfo,
  WebhookFilterCheck,
  WebhookHourStats,
  WebhookPayload,
  WebhooksClient,
  WebhookSession,
  WebhookWindowStats,
} from './webhook-types.js';

export {
  verifyWebhook,
  WebhookVerificationError,
  type VerifyWebhookOptions,
  type WebhookHeaders,
} from './verify-webhook.js';
