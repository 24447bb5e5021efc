/** Injection tokens of a store's child container (internal to composition). */
export const TOKENS = {
  storage: Symbol('Storage'),
  clock: Symbol('Clock'),
  logger: Symbol('Logger'),
  subscriptions: Symbol('WebhookSubscriptions'),
  events: Symbol('PlantEventBus'),
  plantService: Symbol('PlantService'),
  webhookDispatcher: Symbol('WebhookDispatcher'),
  webhookAdmin: Symbol('WebhookAdmin'),
} as const;
