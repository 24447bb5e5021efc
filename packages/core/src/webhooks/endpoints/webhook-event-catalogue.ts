import type { WebhookEventType } from './webhook-endpoint.js';

/** What a tenant can subscribe to: each event type, what it means, and an example body. */
export interface WebhookEventDescription {
  readonly type: WebhookEventType;
  readonly description: string;
  /** An example body (JSON text, so int64 ids stay exact); "send a test event" queues it as is. */
  readonly example: string;
}

/** Every event type in documentation order (as `WEBHOOK_EVENT_TYPES`). */
export const WEBHOOK_EVENT_CATALOGUE: readonly WebhookEventDescription[] = Object.freeze([
  {
    type: 'plant.created',
    description: 'A plant was created in the tenant (not sent again for a repeated create). The body is the plant as stored; its tag is left out when it has none.',
    example: '{"id":9223372036854775807,"name":"Monstera deliciosa","tag":"indoor"}',
  },
  {
    type: 'plant.deleted',
    description: 'A plant was deleted from the tenant. The body holds its id.',
    example: '{"id":9223372036854775807}',
  },
]);

/** The catalogue entry of a known event type. */
export function webhookEventDescription(type: WebhookEventType): WebhookEventDescription {
  return WEBHOOK_EVENT_CATALOGUE.find((entry) => entry.type === type)!;
}
