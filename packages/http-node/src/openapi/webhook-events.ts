import { json, ref } from './openapi-helpers.js';

const header = (name: string, description: string, schema: object) => ({ name, in: 'header', required: true, description, schema });

const headers = (eventType: string) => [
  header('webhook-id', 'Message id, the same on every retry and resend of this message.', {
    type: 'string',
    examples: ['msg_2b7f1c0e9a5d4e6f8a1b2c3d4e5f6a7b'],
  }),
  header('webhook-timestamp', 'Unix time in seconds of this attempt.', { type: 'string', pattern: '^[0-9]+$' }),
  header(
    'webhook-signature',
    [
      '`v1,<base64 HMAC-SHA256>` keyed with the base64-decoded part of the `whsec_` secret, over',
      '`<webhook-id>.<webhook-timestamp>.<body>`; for a tenant endpoint created with `signature: ed25519`,',
      '`v1a,<base64 Ed25519 signature>` of the same text, verified with the `whpk_` public key. After a rotation of a',
      "tenant endpoint's secret, two space-separated signatures (`v1,<new> v1,<old>`) for the overlap period (24 h by",
      'default): a receiver holding either key verifies.',
    ].join(' '),
    { type: 'string', pattern: '^v1a?,[A-Za-z0-9+/]+={0,2}( v1a?,[A-Za-z0-9+/]+={0,2})*$' },
  ),
  header('plant-store-event', 'The event type of the message.', { type: 'string', const: eventType }),
  header('user-agent', '`plant-store/<version>`.', { type: 'string', pattern: '^plant-store/' }),
];

const responses = {
  '2XX': { description: 'Delivered: no further attempts.' },
  '410': { description: 'Gone: this delivery stops retrying (marked failed).' },
  '429': { description: 'Retried later, honouring `Retry-After` (capped).' },
  '503': { description: 'Retried later, honouring `Retry-After` (capped).' },
  default: {
    description: [
      'Any other status, a timeout (15 s by default) or a connection failure: retried with exponential backoff and jitter',
      '(by default after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h), then marked failed and kept. A tenant endpoint whose',
      'attempts all fail for 5 days (with at least one message exhausted) is disabled.',
    ].join(' '),
  },
};

const delivery = [
  'Signed per Standard Webhooks: verify `webhook-signature` over `<webhook-id>.<webhook-timestamp>.<body>` with the',
  'secret. Delivery is at-least-once: deduplicate on `webhook-id`. Redirects are not followed.',
].join(' ');

const message = (operationId: string, type: string, summary: string, description: string, schema: string, bodyDescription?: string) => ({
  post: {
    operationId,
    summary: `${summary} (\`${type}\`)`,
    description: `${description} ${delivery}`,
    parameters: headers(type),
    requestBody: { required: true, ...(bodyDescription === undefined ? {} : { description: bodyDescription }), content: json(ref('schemas', schema)) },
    responses: structuredClone(responses),
  },
});

const operational = [
  'Never sent to the endpoint it is about. Also sent to every operator subscription that lists the type in its',
  '`eventTypes` (for every tenant it matches), with `tenant` added to the body.',
].join(' ');

const operationalEvent = (operationId: string, type: string, summary: string, when: string, schema: string) =>
  message(operationId, type, summary, `Sent to each of the tenant's other enabled endpoints subscribed to \`${type}\` ${when}. ${operational}`, schema);

/** A fresh object each time. */
export function webhookEvents(): Record<string, Record<string, unknown>> {
  return {
    '/plant/webhook': message(
      'newPlantWebhook',
      'plant.created',
      'New Plant',
      [
        "Sent to every operator subscription matching the plant's tenant, and to each of the tenant's enabled endpoints",
        'subscribed to `plant.created`, once a plant is created (not for a repeated create).',
      ].join(' '),
      'NewPlant',
      'The new plant, exactly as stored (tag omitted when absent, id exact).',
    ),
    'plant.deleted': message(
      'plantDeletedWebhook',
      'plant.deleted',
      'Plant deleted',
      "Sent to each of the tenant's enabled endpoints subscribed to `plant.deleted` once a plant is deleted.",
      'PlantDeleted',
      'The id of the deleted plant, exact: `{"id": <int64>}`.',
    ),
    'webhook.endpoint.disabled': operationalEvent(
      'endpointDisabledWebhook',
      'webhook.endpoint.disabled',
      'Endpoint disabled',
      'when an endpoint is disabled automatically (every attempt failed for days)',
      'EndpointDisabledEvent',
    ),
    'webhook.delivery.failed': operationalEvent(
      'deliveryFailedWebhook',
      'webhook.delivery.failed',
      'Delivery failed',
      [
        'when a delivery to an endpoint runs out of retries (not for a 410 answer, a test event, a delivery ended by deleting',
        'its endpoint or discarded when it was enabled again, nor a `webhook.delivery.failed` message, so that failures never feed each other)',
      ].join(' '),
      'DeliveryFailedEvent',
    ),
  };
}
