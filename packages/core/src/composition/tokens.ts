/** Injection tokens of a store's child container (internal to composition). */
export const TOKENS = {
  storage: Symbol('Storage'),
  clock: Symbol('Clock'),
  logger: Symbol('Logger'),
  authenticator: Symbol('Authenticator'),
  webhookTransport: Symbol('WebhookTransport'),
  subscriptions: Symbol('WebhookSubscriptions'),
  deliveryTargets: Symbol('DeliveryTargets'),
  events: Symbol('PlantEventBus'),
  plantService: Symbol('PlantService'),
  webhookDispatcher: Symbol('WebhookDispatcher'),
  webhookAdmin: Symbol('WebhookAdmin'),
} as const;
