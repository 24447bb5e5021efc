import * as v from 'valibot';
import { isJsonObject } from '../../domain/plant.js';
import { objectMessage } from '../../domain/validate.js';
import { endpointUrlSchema, type EndpointUrlOptions } from '../endpoint-url.js';
import { webhookSecretSchema } from '../webhook-subscription.js';
import { ENDPOINT_ID_PREFIX, WEBHOOK_EVENT_TYPES } from './webhook-endpoint.js';

/** Longest endpoint description, in characters (code points). */
export const ENDPOINT_DESCRIPTION_MAX_LENGTH = 512;
/** Highest `rateLimit`, deliveries per second. */
export const ENDPOINT_RATE_LIMIT_MAX = 10_000;
/** Largest page of a tenant listing (endpoints, deliveries); the default is 100. */
export const WEBHOOK_LIST_LIMIT_MAX = 1000;

const codePoints = (text: string): number => {
  let count = 0;
  for (const _ of text) count++;
  return count;
};
const LONE_SURROGATE = /\p{Cs}/u;

const EVENT_TYPES_MESSAGE = `eventTypes must be a non-empty array of ${WEBHOOK_EVENT_TYPES.join(', ')}`;
const eventTypesSchema = v.pipe(
  v.array(v.picklist(WEBHOOK_EVENT_TYPES, EVENT_TYPES_MESSAGE), EVENT_TYPES_MESSAGE),
  v.minLength(1, EVENT_TYPES_MESSAGE),
  v.check((types) => new Set(types).size === types.length, 'eventTypes must not list a type twice'),
);

const DESCRIPTION_MESSAGE = `description must be a string of at most ${ENDPOINT_DESCRIPTION_MAX_LENGTH} characters`;
const descriptionSchema = v.pipe(
  v.string(DESCRIPTION_MESSAGE),
  v.check((text) => codePoints(text) <= ENDPOINT_DESCRIPTION_MAX_LENGTH, DESCRIPTION_MESSAGE),
  v.check((text) => !LONE_SURROGATE.test(text), 'description must be valid Unicode text'),
);

const RATE_LIMIT_MESSAGE = `rateLimit must be an integer between 1 and ${ENDPOINT_RATE_LIMIT_MAX}`;
const rateLimitSchema = v.pipe(
  v.number(RATE_LIMIT_MESSAGE),
  v.integer(RATE_LIMIT_MESSAGE),
  v.minValue(1, RATE_LIMIT_MESSAGE),
  v.maxValue(ENDPOINT_RATE_LIMIT_MAX, RATE_LIMIT_MESSAGE),
);

const STATUS_MESSAGE = 'status must be "enabled" or "disabled"';

/** A JSON object, then the strict shape (so an array or null gets the object message, not a key's). */
const jsonObject = <const TEntries extends v.ObjectEntries>(entries: TEntries, what: string) =>
  v.pipe(v.custom<Record<string, unknown>>(isJsonObject, what), v.strictObject(entries, objectMessage(what)));

/** Body of a create: `{url, eventTypes?, description?, secret?, rateLimit?}`. */
export function newEndpointSchema(options: EndpointUrlOptions) {
  return jsonObject(
    {
      url: endpointUrlSchema(options),
      eventTypes: v.exactOptional(eventTypesSchema),
      description: v.exactOptional(descriptionSchema),
      secret: v.exactOptional(webhookSecretSchema()),
      rateLimit: v.exactOptional(rateLimitSchema),
    },
    'an endpoint must be a JSON object {url, eventTypes?, description?, secret?, rateLimit?}',
  );
}

/** Body of an update: any of `{url, eventTypes, description, rateLimit, status}`; `null` removes `description` or `rateLimit`. */
export function endpointPatchSchema(options: EndpointUrlOptions) {
  return jsonObject(
    {
      url: v.exactOptional(endpointUrlSchema(options)),
      eventTypes: v.exactOptional(eventTypesSchema),
      description: v.exactOptional(v.nullable(descriptionSchema)),
      rateLimit: v.exactOptional(v.nullable(rateLimitSchema)),
      status: v.exactOptional(v.picklist(['enabled', 'disabled'], STATUS_MESSAGE)),
    },
    'an endpoint update must be a JSON object {url?, eventTypes?, description?, rateLimit?, status?}',
  );
}

const EVENT_TYPE_MESSAGE = `eventType must be one of ${WEBHOOK_EVENT_TYPES.join(', ')}`;

/** Body of "send a test event": `{eventType}`. */
export const SendTestSchema = jsonObject(
  { eventType: v.picklist(WEBHOOK_EVENT_TYPES, EVENT_TYPE_MESSAGE) },
  'a test event must be a JSON object {eventType}',
);

/** Body of a rotation: `{secret?}`. */
export const RotateSecretSchema = jsonObject({ secret: v.exactOptional(webhookSecretSchema()) }, 'a rotation must be a JSON object {secret?}');

// RFC 3339 date-time (section 5.6), with a time zone.
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** An RFC 3339 time as epoch ms, the message naming `field`. */
const timeSchema = (field: string) => {
  const message = `${field} must be an RFC 3339 date-time, e.g. 2025-01-31T12:00:00Z`;
  return v.pipe(
    v.string(message),
    v.regex(RFC3339, message),
    v.transform((text) => Date.parse(text)),
    v.check((ms) => Number.isFinite(ms), message),
  );
};

/** Body of a recover: `{since}` (RFC 3339), output as epoch ms. */
export const RecoverSchema = jsonObject({ since: timeSchema('since') }, 'a recover must be a JSON object {since}');

const LIMIT_MESSAGE = `limit must be an integer between 1 and ${WEBHOOK_LIST_LIMIT_MAX}`;
const limitSchema = v.pipe(
  v.number(LIMIT_MESSAGE),
  v.integer(LIMIT_MESSAGE),
  v.minValue(1, LIMIT_MESSAGE),
  v.maxValue(WEBHOOK_LIST_LIMIT_MAX, LIMIT_MESSAGE),
);
const idSchema = (field: string, prefix: string) => {
  const message = `${field} must be an id starting with "${prefix}"`;
  return v.pipe(v.string(message), v.regex(new RegExp(`^${prefix}[A-Za-z0-9_-]{1,64}$`), message));
};

/** Options of an endpoint listing: `{limit?, after?}` (`after` an endpoint id). */
export const ListEndpointsOptionsSchema = v.strictObject(
  { limit: v.exactOptional(limitSchema), after: v.exactOptional(idSchema('after', ENDPOINT_ID_PREFIX)) },
  objectMessage('list options must be an object {limit?, after?}'),
);

/**
 * Query of a delivery listing: `{endpoint?, status?, eventType?, since?, until?, limit?, after?}` (`after` a message
 * id; `since` and `until` RFC 3339 times, output as epoch ms: created at or after `since`, before `until`).
 */
export const ListDeliveriesOptionsSchema = v.strictObject(
  {
    endpoint: v.exactOptional(idSchema('endpoint', ENDPOINT_ID_PREFIX)),
    status: v.exactOptional(v.picklist(['pending', 'delivered', 'failed'], 'status must be "pending", "delivered" or "failed"')),
    eventType: v.exactOptional(v.picklist(WEBHOOK_EVENT_TYPES, `eventType must be one of ${WEBHOOK_EVENT_TYPES.join(', ')}`)),
    since: v.exactOptional(timeSchema('since')),
    until: v.exactOptional(timeSchema('until')),
    limit: v.exactOptional(limitSchema),
    after: v.exactOptional(idSchema('after', 'msg_')),
  },
  objectMessage('list options must be an object {endpoint?, status?, eventType?, since?, until?, limit?, after?}'),
);
