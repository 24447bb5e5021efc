// @plant-store/http-node/webhook-transport: the outbound side, a door of its
// own. The webhook HTTP transport (with its guard against private and
// internal destinations) is what a store's dispatcher sends deliveries with;
// it does not depend on the inbound request listener, and a host that only
// mounts the API, or sends from a worker that serves no HTTP, takes just the
// side it needs.
export { webhookHttpTransport, type WebhookHttpTransportOptions } from './webhooks/webhook-http-transport.js';
