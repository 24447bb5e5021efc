import { DEFAULT_MAX_ENDPOINTS_PER_TENANT } from '@plant-store/core';
import { DELIVERY_STATUSES, WEBHOOK_LIST_LIMIT_MAX } from '@plant-store/core/adapter';
import { authErrors, bodyErrors, errorResponse, json, jsonResponse, ref, requestIdHeader } from './openapi-helpers.js';

// Every operation is tenant-scoped: an id of another tenant is a 404, as is one that never existed.

const notFound = errorResponse("The caller's tenant has no endpoint or delivery with this id.");
const badId = errorResponse('The id segment is not valid percent-encoded UTF-8, empty, too long or holds control characters.');
const badRequest = ref('responses', 'BadRequest');

/** An operation of the `webhooks` tag; `scope` is the `webhooks:` scope it requires, `extra` its parameters or body. */
const operation = (operationId: string, summary: string, description: string, scope: string, responses: object, extra: object = {}) => ({
  operationId,
  tags: ['webhooks'],
  summary,
  description,
  security: [{ bearerAuth: scope === '' ? [] : [`webhooks:${scope}`] }],
  ...extra,
  responses,
});

/** A path below `/{id}` with one operation. */
const idItem = (what: string, method: string, op: object) => ({
  parameters: [{ name: 'id', in: 'path', required: true, description: `${what} id (percent-encoded as needed).`, schema: { type: 'string' } }],
  [method]: op,
});

const idOperation = (what: string, method: string, ...args: Parameters<typeof operation>) => idItem(what, method, operation(...args));

const idResponses = (ok: Record<string, unknown>) => ({ ...ok, '400': badId, ...authErrors, '404': notFound });

/** The answers of an operation on an `{id}` that reads a JSON body. */
const bodyResponses = (ok: Record<string, unknown>, more: Record<string, unknown> = {}) => ({
  ...ok,
  '400': badRequest,
  ...authErrors,
  '404': notFound,
  ...more,
  ...bodyErrors,
});

const query = (name: string, description: string, schema: object) => ({ name, in: 'query', required: false, description, schema });

const pageParameters = [
  // The core's default page size (100) has no exported constant; it is stated here in words only.
  query('limit', `Page size (digits only), 1 to ${WEBHOOK_LIST_LIMIT_MAX}; default 100.`, { type: 'integer', minimum: 1, maximum: WEBHOOK_LIST_LIMIT_MAX }),
  query('after', 'Keyset cursor: the last id of the previous page (as in the `Link` header).', { type: 'string', minLength: 1 }),
];

const linkHeader = (basePath: string, path: string, example: string) => ({
  link: {
    description: 'RFC 8288 link to the next page (same filters and limit), present only when more remain.',
    schema: { type: 'string', examples: [`<${basePath}${path}?${example}>; rel="next"`] },
  },
});

const jsonBody = (schema: string, description: string) => ({ required: true, description, content: json(ref('schemas', schema)) });

const endpointsCollection = (basePath: string) => ({
  get: operation(
    'listWebhookEndpoints',
    'List webhook endpoints',
    "The tenant's endpoints in ascending id order, one page at a time. Unknown query parameters are ignored; a repeated or empty one is a 400. Requires `webhooks:read`.",
    'read',
    {
      '200': jsonResponse(
        'The endpoints (never their secrets).',
        { type: 'array', items: ref('schemas', 'Endpoint') },
        linkHeader(basePath, '/webhooks/endpoints', 'limit=10&after=ep_Jx1b6s0Qf2m9Zk3LwR7tYv4uPa8'),
      ),
      '400': badRequest,
      ...authErrors,
    },
    { parameters: pageParameters },
  ),
  post: operation(
    'createWebhookEndpoint',
    'Create a webhook endpoint',
    'Creates an endpoint for the tenant; from then on every matching event is queued for it in the same transaction as the plant change. The answer is the only read of the endpoint that includes its secret besides `GET …/secret`. Requires `webhooks:write`.',
    'write',
    {
      '201': jsonResponse('Created: the endpoint with what receivers verify with (its secret, or its public key).', ref('schemas', 'EndpointWithSecret')),
      '400': badRequest,
      '422': errorResponse(
        `The tenant already has as many endpoints as the service allows (${DEFAULT_MAX_ENDPOINTS_PER_TENANT} unless its operator set another limit); the message names the limit. Nothing was created.`,
      ),
      ...authErrors,
      ...bodyErrors,
    },
    { requestBody: jsonBody('NewEndpoint', 'The new endpoint (`content-type: application/json`).') },
  ),
});

const endpointItem = {
  ...idItem(
    'Endpoint',
    'get',
    operation(
      'getWebhookEndpoint',
      'Get a webhook endpoint',
      'Requires `webhooks:read`.',
      'read',
      idResponses({ '200': jsonResponse('The endpoint (without its secret).', ref('schemas', 'Endpoint')) }),
    ),
  ),
  patch: operation(
    'updateWebhookEndpoint',
    'Update a webhook endpoint',
    [
      'Changes the given properties. `status: "disabled"` stops deliveries and keeps (parks) the messages for the endpoint;',
      '`status: "enabled"` turns a disabled endpoint back on and replays them, or with `parked: "discard"` ends them failed, or with',
      '`parkedSince` replays only those created since then (then `recover` resends what failed). Requires `webhooks:write`.',
    ].join(' '),
    'write',
    bodyResponses({ '200': jsonResponse('The endpoint as updated.', ref('schemas', 'Endpoint')) }),
    { requestBody: jsonBody('EndpointPatch', 'The changes (`content-type: application/json`).') },
  ),
  delete: operation(
    'deleteWebhookEndpoint',
    'Delete a webhook endpoint',
    'Its pending and parked deliveries end as failed (`endpoint deleted`). Requires `webhooks:write`.',
    'write',
    idResponses({ '204': { description: 'Deleted; no body.', headers: requestIdHeader } }),
  ),
};

const secretItem = idOperation(
  'Endpoint',
  'get',
  'getWebhookEndpointSecret',
  'Get the signing secret',
  'What receivers verify with: the current `whsec_` secret, or the `whpk_` public key of an `ed25519` endpoint. Requires `webhooks:write` (an HMAC secret lets one forge webhooks).',
  'write',
  idResponses({ '200': jsonResponse('The current secret or public key.', ref('schemas', 'Secret')) }),
);

const rotateItem = idOperation(
  'Endpoint',
  'post',
  'rotateWebhookEndpointSecret',
  'Rotate the signing secret',
  [
    'Replaces the secret (with `secret` when given, else a new one; the body may be left out or empty, whatever its content',
    'type) and answers with what receivers verify with; an `ed25519` endpoint always gets a new key pair (giving `secret`',
    'is a 400). For the overlap period (24 h by default) every delivery is signed with the new and the previous key',
    '(`webhook-signature: v1,<new> v1,<old>`),',
    'so receivers holding either verify. Requires `webhooks:write`.',
  ].join(' '),
  'write',
  bodyResponses({ '200': jsonResponse('The new secret or public key.', ref('schemas', 'Secret')) }),
  {
    requestBody: {
      required: false,
      description: 'Optional: `{"secret": "whsec_…"}` to choose the new secret.',
      content: json({ type: 'object', additionalProperties: false, properties: { secret: ref('schemas', 'WebhookSecret') } }),
    },
  },
);

const recoverItem = idOperation(
  'Endpoint',
  'post',
  'recoverWebhookEndpoint',
  'Resend failed deliveries',
  'Queues again every failed delivery to the endpoint created at or after `since`. Requires `webhooks:write`.',
  'write',
  bodyResponses({ '202': jsonResponse('Queued.', ref('schemas', 'Requeued')) }),
  { requestBody: jsonBody('Recover', '`{"since": "<RFC 3339 time>"}`.') },
);

const statsItem = idOperation(
  'Endpoint',
  'get',
  'getWebhookEndpointStats',
  'Endpoint health',
  [
    'How the attempts to the endpoint went over the last hour, 24 hours and 7 days: a 2xx answer succeeded, anything',
    'else (another status, a timeout, a refused connection) failed; attempts cut short by a shutdown are left out.',
    'With the most recent attempt of the last 7 days. Requires `webhooks:read`.',
  ].join(' '),
  'read',
  idResponses({ '200': jsonResponse('The statistics.', ref('schemas', 'EndpointStats')) }),
);

const testItem = idOperation(
  'Endpoint',
  'post',
  'sendWebhookTestEvent',
  'Send a test event',
  [
    'Queues the example body of `eventType` (see `GET /webhooks/event-types`; any known type, whether the endpoint',
    'subscribes to it or not) to this endpoint only. It is signed and sent like any delivery, retried the same way,',
    'and marked `test: true` in the delivery log. Requires `webhooks:write`.',
  ].join(' '),
  'write',
  bodyResponses(
    { '202': jsonResponse('Queued: the delivery, with `test: true`.', ref('schemas', 'Delivery')) },
    { '409': errorResponse("The endpoint is disabled (enable it first), or the example does not match the endpoint's filter: nothing was queued.") },
  ),
  { requestBody: jsonBody('SendTest', '`{"eventType": "plant.created"}`.') },
);

const deliveryFilters = [
  query('endpoint', 'Only deliveries to this endpoint.', { type: 'string', minLength: 1 }),
  query('status', 'Only deliveries in this state (`parked`: kept for a disabled endpoint).', { type: 'string', enum: [...DELIVERY_STATUSES] }),
  query('eventType', 'Only deliveries of this event type.', ref('schemas', 'WebhookEventType')),
  query('since', 'Only deliveries created at or after this time (RFC 3339).', { type: 'string', format: 'date-time', examples: ['2026-01-31T12:00:00Z'] }),
  query('until', 'Only deliveries created before this time (RFC 3339).', { type: 'string', format: 'date-time', examples: ['2026-02-01T12:00:00Z'] }),
];

const deliveriesCollection = (basePath: string) => ({
  get: operation(
    'listWebhookDeliveries',
    'List webhook deliveries',
    "Messages to the tenant's endpoints with their attempts, newest first, one page at a time. Requires `webhooks:read`.",
    'read',
    {
      '200': jsonResponse(
        'The deliveries.',
        { type: 'array', items: ref('schemas', 'Delivery') },
        linkHeader(basePath, '/webhooks/deliveries', 'status=failed&limit=10&after=msg_2b7f1c0e9a5d4e6f8a1b2c3d4e5f6a7b'),
      ),
      '400': badRequest,
      ...authErrors,
    },
    { parameters: [...deliveryFilters, ...pageParameters] },
  ),
});

const deliveryItem = idOperation(
  'Delivery',
  'get',
  'getWebhookDelivery',
  'Get a webhook delivery',
  'Requires `webhooks:read`.',
  'read',
  idResponses({ '200': jsonResponse('The delivery with its attempts.', ref('schemas', 'Delivery')) }),
);

const resendItem = idOperation(
  'Delivery',
  'post',
  'resendWebhookDelivery',
  'Resend a delivery',
  'Queues the delivery again whatever its state, with the same `webhook-id` (receivers deduplicate on it). No body is needed. Requires `webhooks:write`.',
  'write',
  idResponses({ '202': jsonResponse('Queued.', ref('schemas', 'Empty')) }),
);

/** What the routes that read no storage themselves can fail with beyond 401/403: checking a portal link reads storage. */
const authUnavailable = errorResponse('A portal link could not be checked (storage unavailable); retry later.', {
  'retry-after': { description: 'Seconds to wait before retrying.', schema: { type: 'string' } },
});

const sessionItem = {
  get: operation(
    'getWebhookSession',
    'Who the token signs in as',
    [
      'The tenant, subject and scopes of the bearer token, and when it expires for a portal link. Any valid token may',
      'ask, whatever its scopes: the portal learns from it which actions to offer.',
    ].join(' '),
    '',
    { '200': jsonResponse('The session.', ref('schemas', 'Session')), '401': ref('responses', 'Unauthorized'), '503': authUnavailable },
  ),
};

const eventTypesItem = {
  get: operation(
    'listWebhookEventTypes',
    'List the event types',
    [
      'Every event type an endpoint can subscribe to, with a description, the JSON Schema of its body (the same as the',
      "document's `webhooks` section, self-contained) and an example body. Requires `webhooks:read`.",
    ].join(' '),
    'read',
    {
      '200': jsonResponse('The catalogue, in documentation order.', { type: 'array', items: ref('schemas', 'EventType') }),
      '401': ref('responses', 'Unauthorized'),
      '403': ref('responses', 'Forbidden'),
      '503': authUnavailable,
    },
  ),
};

const filterCheckItem = {
  post: operation(
    'checkWebhookFilter',
    'Try a filter',
    [
      'Whether a filter matches the example of each event type of the catalogue (see `GET /webhooks/event-types`), as an event of',
      "the caller's tenant; nothing is stored. A filter that an endpoint would refuse is a 400 naming its path. Requires `webhooks:read`.",
    ].join(' '),
    'read',
    {
      '200': jsonResponse('For each event type, whether the filter matches its example.', ref('schemas', 'FilterCheckResults')),
      '400': badRequest,
      '401': ref('responses', 'Unauthorized'),
      '403': ref('responses', 'Forbidden'),
      '503': authUnavailable,
      ...bodyErrors,
    },
    { requestBody: jsonBody('FilterCheck', '`{"filter": {"data.tag": {"$in": ["indoor", "rare"]}}}`.') },
  ),
};

/** Every path of the webhook endpoints API; `basePath` goes into the `Link` examples. */
export function webhookPaths(basePath: string): Record<string, Record<string, unknown>> {
  // A deep copy: every document is the caller's to change.
  return structuredClone({
    '/webhooks/endpoints': endpointsCollection(basePath),
    '/webhooks/endpoints/{id}': endpointItem,
    '/webhooks/endpoints/{id}/secret': secretItem,
    '/webhooks/endpoints/{id}/rotate-secret': rotateItem,
    '/webhooks/endpoints/{id}/recover': recoverItem,
    '/webhooks/endpoints/{id}/stats': statsItem,
    '/webhooks/endpoints/{id}/test': testItem,
    '/webhooks/deliveries': deliveriesCollection(basePath),
    '/webhooks/deliveries/{id}': deliveryItem,
    '/webhooks/deliveries/{id}/resend': resendItem,
    '/webhooks/session': sessionItem,
    '/webhooks/event-types': eventTypesItem,
    '/webhooks/filter-check': filterCheckItem,
  });
}
