import { ALL_SCOPES, DESTINATION_KINDS, ENDPOINT_ORDERINGS, WEBHOOK_EVENT_TYPES } from '@plant-store/core';
import {
  CONNECTION_HEADER_NAMES,
  DELIVERY_STATUSES,
  ENDPOINT_DESCRIPTION_MAX_LENGTH,
  ENDPOINT_FILTER_MAX_BYTES,
  ENDPOINT_FILTER_MAX_DEPTH,
  ENDPOINT_HEADER_NAME,
  ENDPOINT_HEADER_VALUE,
  ENDPOINT_HEADER_VALUE_MAX_LENGTH,
  ENDPOINT_HEADERS_MAX,
  ENDPOINT_RATE_LIMIT_MAX,
  ENDPOINT_URL_MAX_LENGTH,
  MIN_SECRET_BYTES,
  PARKED_ACTIONS,
  PARKED_DISCARDED_ERROR,
  RESERVED_HEADER_NAMES,
  STATS_HOURS,
} from '@plant-store/core/adapter';
import { ref } from './openapi-helpers.js';

/** A closed object's `type`, `required` and `additionalProperties`. */
const closed = (...required: string[]) => ({ type: 'object', required, additionalProperties: false });
const count = { type: 'integer', minimum: 0 };
const time = (description: string) => ({ type: 'string', format: 'date-time', description: `${description} (RFC 3339, UTC).` });

const url = {
  type: 'string',
  format: 'uri',
  maxLength: ENDPOINT_URL_MAX_LENGTH,
  description: [
    `An absolute \`http\` or \`https\` URL of at most ${ENDPOINT_URL_MAX_LENGTH} characters, without credentials; where the`,
    'operator allows them, also a message broker: `amqp(s)://`, `nats://`, `redis(s)://` or `mqtt(s)://`, which may carry',
    'credentials, shown back as `***`. A host that is a loopback, private, link-local, unspecified or multicast IP literal',
    'is a 400 unless the operator allows private destinations; host names are checked at delivery, an HTTP one on the',
    "address actually connected, a broker's on every address it resolves to just before connecting.",
  ].join(' '),
  examples: ['https://example.com/hooks/plants'],
};
const kind = {
  type: 'string',
  enum: [...DESTINATION_KINDS],
  description: [
    "Where the endpoint's messages go, named by its URL's scheme: `http` (`http`, `https`), `amqp` (RabbitMQ), `nats` (NATS",
    'JetStream), `redis` (Redis Streams) or `mqtt` (MQTT 5). Read-only: it follows the `url`.',
  ].join(' '),
};
const eventType = ref('schemas', 'WebhookEventType');
const eventTypes = {
  type: 'array',
  minItems: 1,
  uniqueItems: true,
  items: eventType,
  description: 'The events sent to the endpoint; at least one, no repeats.',
};
const operatorTenant = { type: 'string', description: 'The tenant the event is about; only in deliveries to operator subscriptions.' };
/** Every body a message can have, one schema per kind. */
const eventBodies = () => ['Plant', 'PlantDeleted', 'EndpointDisabledEvent', 'DeliveryFailedEvent'].map((name) => ref('schemas', name));
const description = { type: 'string', maxLength: ENDPOINT_DESCRIPTION_MAX_LENGTH, description: `At most ${ENDPOINT_DESCRIPTION_MAX_LENGTH} characters.` };
const rateLimit = {
  type: 'integer',
  minimum: 1,
  maximum: ENDPOINT_RATE_LIMIT_MAX,
  description: 'Deliveries per second to this endpoint; more are throttled (delayed), never dropped.',
};
const codeList = (names: readonly string[]) => names.map((name) => `\`${name}\``).join(', ');
const headers = {
  type: 'object',
  maxProperties: ENDPOINT_HEADERS_MAX,
  propertyNames: { pattern: ENDPOINT_HEADER_NAME.source },
  additionalProperties: { type: 'string', maxLength: ENDPOINT_HEADER_VALUE_MAX_LENGTH, pattern: ENDPOINT_HEADER_VALUE.source },
  description: [
    `Request headers sent on every attempt to the endpoint: at most ${ENDPOINT_HEADERS_MAX}, names HTTP tokens (case-insensitive, no`,
    `repeats), values of at most ${ENDPOINT_HEADER_VALUE_MAX_LENGTH} visible ASCII characters, spaces or tabs. Names the service sets`,
    `itself are a 400: ${codeList(RESERVED_HEADER_NAMES)} and every \`webhook-*\`; so are names that govern the connection or the`,
    `request's framing, which its HTTP client owns: ${codeList(CONNECTION_HEADER_NAMES)} and every \`proxy-*\`. Values are never logged.`,
  ].join(' '),
  examples: [{ Authorization: 'Bearer 8f2c1e', 'X-Team': 'garden' }],
};
const signature = {
  type: 'string',
  enum: ['hmac', 'ed25519'],
  default: 'hmac',
  description: [
    '`hmac`: a shared `whsec_` secret signs (`v1,`). `ed25519`: the service makes a key pair, keeps the `whsk_` secret key',
    'and answers with the `whpk_` public key; deliveries carry `v1a,` Ed25519 signatures, and receivers hold nothing that',
    'could sign. Fixed at creation.',
  ].join(' '),
};
const ordering = {
  type: 'string',
  enum: [...ENDPOINT_ORDERINGS],
  description: [
    '`plant`: the messages about one plant reach this endpoint in the order they were queued. A message is not attempted while an',
    'earlier one about the same plant is pending (in flight or waiting for a retry); it waits without `nextAttemptAt` and is due',
    'when that one ends (delivered or failed). Other plants are not held back. `none`: no order is kept. Default: `none`.',
  ].join(' '),
};
const filter = {
  type: 'object',
  description: [
    'Only events that match this MongoDB-style query over `{type, tenant, data}` (`data` is the body) are queued to the endpoint;',
    'without it, every event it subscribes to. Keys are field paths (`type`, `tenant`, `data`, `data.tag`, …) or `$and`/`$or`',
    "(arrays of queries); a field's condition is a value (equality) or an object of `$eq`, `$ne`, `$gt`, `$gte`, `$lt`, `$lte`",
    '(a string, number, boolean or null), `$in`, `$nin` (arrays of those), `$exists` (a boolean) and `$not` (an object of them).',
    'An array field matches when it contains the value. Any other operator (`$where`, `$regex`, `$elemMatch`, …) is a 400 naming',
    `its path; so is a filter of more than ${ENDPOINT_FILTER_MAX_BYTES} bytes or nested deeper than ${ENDPOINT_FILTER_MAX_DEPTH} levels.`,
    'Integers compare exactly (int64 ids included).',
  ].join(' '),
  examples: [{ 'data.tag': { $in: ['indoor', 'rare'] } }],
};
const status = { type: 'string', enum: ['enabled', 'disabled'] };
/** Only with `status: "enabled"`: what enabling a disabled endpoint does with the messages kept for it while it was off. */
const parked = {
  type: 'string',
  enum: [...PARKED_ACTIONS],
  description: [
    'Only with `"status": "enabled"` (else a 400): what enabling a disabled endpoint does with the messages kept (parked) for it',
    'while it was disabled. `replay`: they are queued again, due now, in the order they were created (each behind the',
    'pending messages of its plant on an endpoint with `ordering: "plant"`). `discard`: they end `failed` with the error',
    `\`${PARKED_DISCARDED_ERROR}\` (\`recover\` can still resend them). Default: \`replay\`. Enabling an endpoint that is already`,
    'enabled changes nothing of its deliveries.',
  ].join(' '),
};
const parkedSince = {
  type: 'string',
  format: 'date-time',
  description: [
    'Only with `"status": "enabled"`, and not with `"parked": "discard"` (else a 400): replay only the parked messages created at',
    'or after this time (RFC 3339); the older ones are discarded as by `"parked": "discard"`.',
  ].join(' '),
  examples: ['2026-01-31T12:00:00Z'],
};
const deliveryStatus = {
  type: 'string',
  enum: [...DELIVERY_STATUSES],
  description: [
    '`pending`: queued or waiting for a retry. `delivered`: the receiver took it (2xx). `failed`: its retries ran out, the receiver',
    'answered 410, or it ended with its endpoint (deleted, or its parked messages discarded). `parked`: kept for its endpoint while',
    'that is disabled: never attempted until the endpoint is enabled, which replays it (or discards it, as chosen).',
  ].join(' '),
};
const secret = ref('schemas', 'WebhookSecret');
const verificationKey = ref('schemas', 'VerificationKey');

/** `whsec_` and the base64 of the key. */
const secretValue = {
  type: 'string',
  pattern: '^whsec_[A-Za-z0-9+/]+={0,2}$',
  description: `\`whsec_\` and the base64 of at least ${MIN_SECRET_BYTES} random bytes (Standard Webhooks).`,
  examples: ['whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD64zdyT2vgT0='],
};

/**
 * An endpoint as the API shows it, with `extra` properties (the secret on
 * create). One closed object rather than `allOf` over a closed base: strict
 * validators refuse any property the base does not list.
 */
function endpointSchema(extra: Record<string, unknown> = {}) {
  return {
    ...closed('id', 'url', 'kind', 'eventTypes', 'ordering', 'status', 'createdAt', 'updatedAt', ...Object.keys(extra)),
    properties: {
      id: { type: 'string', pattern: '^ep_[A-Za-z0-9_-]+$', examples: ['ep_Jx1b6s0Qf2m9Zk3LwR7tYv4uPa8'] },
      url,
      kind,
      eventTypes,
      description,
      rateLimit,
      headers,
      ordering,
      filter,
      status,
      disabledReason: { type: 'string', description: 'Why it is disabled; only while disabled.' },
      parkedDropped: {
        type: 'integer',
        minimum: 1,
        description: [
          'How many messages kept for it while disabled (parked) were dropped, the oldest first, because more were kept than the',
          "service's bound allows, since it was last disabled. Absent when none.",
        ].join(' '),
      },
      createdAt: time('When it was created'),
      updatedAt: time('When it last changed'),
      ...extra,
    },
  };
}

/** The component schemas of the webhook endpoints API. */
const schemas = {
  WebhookEventType: { type: 'string', enum: [...WEBHOOK_EVENT_TYPES] },
  WebhookSecret: secretValue,
  VerificationKey: {
    type: 'string',
    pattern: '^(whsec|whpk)_[A-Za-z0-9+/]+={0,2}$',
    description: 'What receivers verify with: the `whsec_` secret of an `hmac` endpoint, the `whpk_` public key (base64 of 32 bytes) of an `ed25519` one.',
    examples: ['whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD64zdyT2vgT0=', 'whpk_8IOka82Qv+4zF3zcpFM0IcVIXCZs09FIu+o1K5MuGD8='],
  },
  Secret: { ...closed('secret'), properties: { secret: verificationKey } },
  NewEndpoint: {
    ...closed('url'),
    properties: {
      url,
      // The default is stated in words: generators make a property with a `default` required in their types.
      eventTypes: { ...eventTypes, description: `${eventTypes.description} Default: \`["plant.created"]\`.` },
      description,
      secret: { ...secret, description: 'Default: a new secret of 32 random bytes. Only for `hmac` endpoints.' },
      rateLimit,
      headers,
      ordering,
      signature,
      filter,
    },
  },
  EndpointPatch: {
    type: 'object',
    additionalProperties: false,
    description: 'Only the properties given change; `{}` changes nothing.',
    properties: {
      url,
      eventTypes,
      description,
      rateLimit,
      headers: { ...headers, type: ['object', 'null'], description: `${headers.description} \`null\` or \`{}\` removes them; an object replaces them all.` },
      ordering: { ...ordering, description: `${ordering.description} Messages already queued keep the line they joined.` },
      status: {
        ...status,
        description: [
          '`disabled` stops deliveries (reason "disabled by the tenant"): its pending messages, and the events it gets while disabled,',
          'are kept for it (parked, up to a bound the operator sets). `enabled` resumes them, replaying the parked messages unless',
          '`parked` says otherwise.',
        ].join(' '),
      },
      filter: { ...filter, type: ['object', 'null'], description: `${filter.description} \`null\` removes it; events queued before the change keep it.` },
      parked,
      parkedSince,
    },
  },
  FilterCheck: { ...closed('filter'), properties: { filter } },
  FilterCheckResults: {
    ...closed('results'),
    properties: {
      results: {
        type: 'array',
        description: 'One per event type of the catalogue, in its order.',
        items: {
          ...closed('eventType', 'matches'),
          properties: { eventType, matches: { type: 'boolean', description: 'Whether the filter matches its example.' } },
        },
      },
    },
  },
  Endpoint: endpointSchema(),
  EndpointWithSecret: { ...endpointSchema({ secret: verificationKey }), description: 'The endpoint and what receivers verify with (only on create).' },
  Attempt: {
    ...closed('at', 'durationMs'),
    properties: {
      at: time('When the attempt started'),
      durationMs: count,
      statusCode: { type: 'integer', description: "The receiver's status, when it answered." },
      error: {
        type: 'string',
        description: `Why it failed without a usable answer (timeout, connection refused, \`destination not allowed\`, \`endpoint deleted\`, \`${PARKED_DISCARDED_ERROR}\`, …).`,
      },
      response: {
        type: 'string',
        description:
          "The start of the receiver's answer body: its first 1024 bytes as UTF-8 text, cut before a character the limit would split. Absent when the answer had no body (or there was no answer).",
      },
    },
  },
  Delivery: {
    ...closed('id', 'endpointId', 'eventType', 'payload', 'status', 'attempts', 'createdAt'),
    properties: {
      id: { type: 'string', description: 'Also the `webhook-id` the receiver sees.', examples: ['msg_2b7f1c0e9a5d4e6f8a1b2c3d4e5f6a7b'] },
      endpointId: { type: 'string' },
      eventType,
      payload: {
        description: 'The exact body sent: the plant for `plant.created`, `{"id": <int64>}` for `plant.deleted`, the event for the operational types.',
        oneOf: eventBodies(),
      },
      status: deliveryStatus,
      attempts: { type: 'array', items: ref('schemas', 'Attempt'), description: 'Oldest first.' },
      nextAttemptAt: time(
        'When the next attempt is due; only while pending, and not while it waits behind an earlier message about the same plant (an endpoint with `ordering: "plant"`)',
      ),
      waitingBehind: {
        type: 'string',
        description: [
          'While it waits behind an earlier message about the same plant (an endpoint with `ordering: "plant"`): the id of the',
          'pending message just before it, the one it waits for. Absent otherwise.',
        ].join(' '),
        examples: ['msg_2b7f1c0e9a5d4e6f8a1b2c3d4e5f6a7b'],
      },
      createdAt: time('When it was queued'),
      test: { type: 'boolean', const: true, description: 'Present (true) only on a delivery queued by "send a test event".' },
    },
  },
  PlantDeleted: { ...closed('id'), properties: { id: ref('schemas', 'PlantId') } },
  EndpointDisabledEvent: {
    ...closed('endpointId', 'reason', 'at'),
    properties: {
      tenant: operatorTenant,
      endpointId: { type: 'string', description: 'The endpoint that was disabled.', examples: ['ep_Jx1b6s0Qf2m9Zk3LwR7tYv4uPa8'] },
      reason: { type: 'string', description: 'Its `disabledReason`.' },
      at: time('When it was disabled'),
      enable: {
        type: 'string',
        description: [
          'How to enable it again, replaying or discarding the events kept (parked) for it while it is disabled. Absent from events',
          'queued by an older version.',
        ].join(' '),
      },
    },
  },
  DeliveryFailedEvent: {
    ...closed('deliveryId', 'endpointId', 'eventType', 'attempts', 'lastError', 'at'),
    properties: {
      tenant: operatorTenant,
      deliveryId: { type: 'string', description: 'The delivery that failed (`GET /webhooks/deliveries/{id}` shows its attempts).' },
      endpointId: { type: 'string', description: 'The endpoint it was for.' },
      eventType,
      attempts: { type: 'integer', minimum: 1, description: 'Attempts it was given (interrupted ones not counted).' },
      lastError: { type: 'string', description: 'Why its last attempt failed, e.g. `receiver answered 500`.' },
      at: time('When its last attempt ended'),
    },
  },
  Recover: { ...closed('since'), properties: { since: time('Failed deliveries created at or after this time are queued again') } },
  Requeued: { ...closed('requeued'), properties: { requeued: { type: 'integer', minimum: 0, description: 'How many deliveries were queued again.' } } },
  Empty: { type: 'object', additionalProperties: false, maxProperties: 0 },
  SendTest: { ...closed('eventType'), properties: { eventType: eventType } },
  WindowStats: {
    ...closed('succeeded', 'failed', 'successRate'),
    properties: {
      succeeded: count,
      failed: count,
      successRate: { type: ['number', 'null'], minimum: 0, maximum: 1, description: '`succeeded / (succeeded + failed)`; null when no attempt was made.' },
    },
  },
  EndpointStats: {
    ...closed('endpointId', 'windows', 'hourly'),
    properties: {
      endpointId: { type: 'string' },
      lastAttempt: {
        ...closed('at'),
        description: 'The most recent attempt of the last 7 days; absent when none.',
        properties: { at: time('When it started'), statusCode: { type: 'integer', description: "The receiver's status, when it answered." } },
      },
      windows: {
        ...closed('1h', '24h', '7d'),
        properties: { '1h': ref('schemas', 'WindowStats'), '24h': ref('schemas', 'WindowStats'), '7d': ref('schemas', 'WindowStats') },
      },
      hourly: {
        type: 'array',
        minItems: STATS_HOURS,
        maxItems: STATS_HOURS,
        description: `The last ${STATS_HOURS} clock hours (UTC), oldest first; the last one is the current hour so far.`,
        items: { ...closed('start', 'succeeded', 'failed'), properties: { start: time('Start of the hour'), succeeded: count, failed: count } },
      },
    },
  },
  EventType: {
    ...closed('type', 'description', 'schema', 'example'),
    properties: {
      type: eventType,
      description: { type: 'string' },
      schema: { type: 'object', description: 'JSON Schema (2020-12) of the body sent for this type.' },
      example: {
        description: 'An example body; "send a test event" sends it.',
        oneOf: eventBodies(),
      },
    },
  },
  Session: {
    ...closed('tenant', 'subject', 'scopes'),
    properties: {
      tenant: { type: 'string' },
      subject: { type: 'string', description: 'Who signed in: `portal-link:<link id>` for a portal link.' },
      scopes: {
        type: 'array',
        uniqueItems: true,
        items: { type: 'string', enum: [...ALL_SCOPES] },
        description: 'What the token may do; a portal link has `webhooks:read`, and `webhooks:write` unless read-only.',
      },
      expiresAt: time('When the token stops working; only for portal links'),
    },
  },
};

/** The component schemas of the webhook endpoints API, a fresh copy each time. */
export const webhookSchemas = () => structuredClone(schemas);
