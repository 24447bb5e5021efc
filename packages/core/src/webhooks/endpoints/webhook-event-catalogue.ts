import { howToEnable, type WebhookEventType } from './webhook-endpoint.js';

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
    description:
      'A plant was created in the tenant (not sent again for a repeated create). The body is the plant as stored; its tag is left out when it has none.',
    example: '{"id":9223372036854775807,"name":"Monstera deliciosa","tag":"indoor"}',
  },
  {
    type: 'plant.deleted',
    description: 'A plant was deleted from the tenant. The body holds its id.',
    example: '{"id":9223372036854775807}',
  },
  {
    type: 'webhook.endpoint.disabled',
    description:
      "Another of the tenant's endpoints was disabled automatically because every attempt to it failed for days. Never sent to the endpoint it is about. `at` is when it was disabled; `enable` says how to enable it again, replaying or discarding the events kept for it meanwhile.",
    example:
      '{"endpointId":"ep_Jx1b6s0Qf2m9Zk3LwR7tYv4uPa8","reason":"every attempt failed for 5d or more (since 2026-05-01T09:30:00.000Z)","at":"2026-05-06T09:30:00.000Z",' +
      `"enable":${JSON.stringify(howToEnable('ep_Jx1b6s0Qf2m9Zk3LwR7tYv4uPa8'))}}`,
  },
  {
    type: 'webhook.delivery.failed',
    description:
      "A delivery to another of the tenant's endpoints ran out of retries (not sent for a 410 answer, for a test event, for a delivery ended by deleting its endpoint or discarded when it was enabled again, nor about a `webhook.delivery.failed` message). Never sent to the endpoint it is about. `at` is when its last attempt ended.",
    example:
      '{"deliveryId":"msg_5f0c8e2a9b7d4c1e8f3a6b2d9c0e7f14","endpointId":"ep_Jx1b6s0Qf2m9Zk3LwR7tYv4uPa8","eventType":"plant.created","attempts":8,"lastError":"receiver answered 500","at":"2026-05-02T16:30:00.000Z"}',
  },
]);
