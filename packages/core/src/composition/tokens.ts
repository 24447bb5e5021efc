/** Injection tokens of a store's child container (internal to composition). */
export const TOKENS = {
  storage: Symbol('Storage'),
  clock: Symbol('Clock'),
  logger: Symbol('Logger'),
  authenticator: Symbol('Authenticator'),
  webhookTransport: Symbol('WebhookTransport'),
  settings: Symbol('StoreSettings'),
  subscriptions: Symbol('OperatorSubscriptions'),
  events: Symbol('PlantEventBus'),
  plantService: Symbol('PlantService'),
  deliveryTargets: Symbol('DeliveryTargets'),
  webhookDispatcher: Symbol('WebhookDispatcher'),
  webhookPruner: Symbol('WebhookPruner'),
  webhookAdmin: Symbol('WebhookAdmin'),
  tenantWebhooks: Symbol('TenantWebhooks'),
  portalLinks: Symbol('PortalLinks'),
  store: Symbol('PlantStore'),
} as const;
