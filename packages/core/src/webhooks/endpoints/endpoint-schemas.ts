import * as v from 'valibot';
import { isJsonObject } from '../../domain/plant.js';
import type { DeliveryStatus } from '../../ports/webhook-outbox.js';
import { objectMessage } from '../../domain/validate.js';
import { codePoints, endpointUrlSchema, type EndpointUrlOptions } from '../endpoint-url.js';
import { eventTypesSchema, webhookSecretSchema } from '../webhook-subscription.js';
import { endpointFilterSchema } from './endpoint-filter.js';
import { refusedHeaderReason } from './refused-header-names.js';
import { ENDPOINT_ID_PREFIX, ENDPOINT_ORDERINGS, PARKED_ACTIONS, WEBHOOK_EVENT_TYPES } from './webhook-endpoint.js';

/** Longest endpoint description, in characters (code points). */
export const ENDPOINT_DESCRIPTION_MAX_LENGTH = 512;
/** Highest `rateLimit`, deliveries per second. */
export const ENDPOINT_RATE_LIMIT_MAX = 10_000;
/** Largest page of a tenant listing (endpoints, deliveries); the default is 100. */
export const WEBHOOK_LIST_LIMIT_MAX = 1000;

const LONE_SURROGATE = /\p{Cs}/u;

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

/** Most custom headers on one endpoint. */
export const ENDPOINT_HEADERS_MAX = 20;
/** Longest custom header value, in bytes. */
export const ENDPOINT_HEADER_VALUE_MAX_LENGTH = 1024;
/** A custom header name: an HTTP token (RFC 9110). */
export const ENDPOINT_HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** A custom header value: visible ASCII, space and tab (HTTP/1.1 gives other bytes no agreed meaning, and CR or LF would split the request). */
export const ENDPOINT_HEADER_VALUE = /^[\t\x20-\x7e]*$/;
const HEADERS_MESSAGE = `headers must be an object of at most ${ENDPOINT_HEADERS_MAX} header names to string values`;

/** What is wrong with one custom header (`seen`: the lower-case names before it), as a message naming it. */
function headerProblem(name: string, value: unknown, seen: Set<string>): string | undefined {
  const field = `headers.${name.slice(0, 100)}`;
  const lower = name.toLowerCase();
  if (!ENDPOINT_HEADER_NAME.test(name)) return `${field} is not a header name: names are HTTP tokens (letters, digits and !#$%&'*+.^_\`|~-)`;
  const refused = refusedHeaderReason(name);
  if (refused !== undefined) return `${field} ${refused}`;
  if (seen.has(lower)) return `${field} names a header twice (names are case-insensitive)`;
  seen.add(lower);
  if (typeof value !== 'string' || value.length > ENDPOINT_HEADER_VALUE_MAX_LENGTH || !ENDPOINT_HEADER_VALUE.test(value)) {
    return `${field} must be a string of at most ${ENDPOINT_HEADER_VALUE_MAX_LENGTH} visible ASCII characters, spaces or tabs (no CR or LF)`;
  }
  return undefined;
}

const headersSchema = v.pipe(
  v.custom<Record<string, unknown>>(isJsonObject, HEADERS_MESSAGE),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const headers = dataset.value;
    if (Object.keys(headers).length > ENDPOINT_HEADERS_MAX) return addIssue({ message: HEADERS_MESSAGE });
    const seen = new Set<string>();
    for (const [key, value] of Object.entries(headers)) {
      const message = headerProblem(key, value, seen);
      if (message) return addIssue({ message, path: [{ type: 'object', origin: 'value', input: headers, key, value }] });
    }
  }),
  v.transform((headers) => headers as Record<string, string>),
);

const orderingSchema = v.picklist(ENDPOINT_ORDERINGS, 'ordering must be "none" or "plant"');

/** A JSON object, then the strict shape (so an array or null gets the object message, not a key's). */
const jsonObject = <const TEntries extends v.ObjectEntries>(entries: TEntries, what: string) =>
  v.pipe(v.custom<Record<string, unknown>>(isJsonObject, what), v.strictObject(entries, objectMessage(what)));

/** Body of a create: `{url, eventTypes?, description?, secret?, rateLimit?, headers?, ordering?, signature?, filter?}`; `secret` only for `hmac`. */
export function newEndpointSchema(options: EndpointUrlOptions) {
  return v.pipe(
    jsonObject(
      {
        url: endpointUrlSchema(options),
        eventTypes: v.exactOptional(eventTypesSchema(WEBHOOK_EVENT_TYPES)),
        description: v.exactOptional(descriptionSchema),
        secret: v.exactOptional(webhookSecretSchema()),
        rateLimit: v.exactOptional(rateLimitSchema),
        headers: v.exactOptional(headersSchema),
        ordering: v.exactOptional(orderingSchema),
        signature: v.exactOptional(v.picklist(['hmac', 'ed25519'], 'signature must be "hmac" or "ed25519"')),
        filter: v.exactOptional(endpointFilterSchema),
      },
      'an endpoint must be a JSON object {url, eventTypes?, description?, secret?, rateLimit?, headers?, ordering?, signature?, filter?}',
    ),
    v.forward(
      v.check(({ secret, signature }) => secret === undefined || signature !== 'ed25519', ED25519_SECRET_MESSAGE),
      ['secret'],
    ),
  );
}

/** Why an ed25519 endpoint takes no `secret`: its secret key must never have been outside the service. */
export const ED25519_SECRET_MESSAGE = 'secret cannot be given for an ed25519 endpoint: the service makes its key pair';

/** An RFC 3339 date-time with a time zone, as epoch ms, the message naming `field`. */
const timeSchema = (field: string) => {
  const message = `${field} must be an RFC 3339 date-time, e.g. 2025-01-31T12:00:00Z`;
  return v.pipe(
    v.string(message),
    v.regex(/^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/, message),
    v.transform((text) => Date.parse(text)),
    v.check((ms) => Number.isFinite(ms), message),
  );
};

/** Why `field` (`parked` or `parkedSince`) was refused without `"status": "enabled"`: only enabling acts on parked messages. */
const onlyWhenEnabling = (field: string) => `${field} applies when enabling: send it with "status": "enabled"`;
/** Why `parkedSince` was refused beside a discard. */
export const PARKED_SINCE_DISCARD_MESSAGE = 'parkedSince applies to a replay: it cannot go with "parked": "discard"';

/**
 * Body of an update: any of `{url, eventTypes, description, rateLimit, headers, ordering, status, filter, parked, parkedSince}`;
 * `null` removes `description`, `rateLimit`, `headers` or `filter`. `parked` and `parkedSince` (epoch ms out) only with `status: "enabled"`.
 */
export function endpointPatchSchema(options: EndpointUrlOptions) {
  return v.pipe(
    jsonObject(
      {
        url: v.exactOptional(endpointUrlSchema(options)),
        eventTypes: v.exactOptional(eventTypesSchema(WEBHOOK_EVENT_TYPES)),
        description: v.exactOptional(v.nullable(descriptionSchema)),
        rateLimit: v.exactOptional(v.nullable(rateLimitSchema)),
        headers: v.exactOptional(v.nullable(headersSchema)),
        ordering: v.exactOptional(orderingSchema),
        status: v.exactOptional(v.picklist(['enabled', 'disabled'], 'status must be "enabled" or "disabled"')),
        filter: v.exactOptional(v.nullable(endpointFilterSchema)),
        parked: v.exactOptional(v.picklist(PARKED_ACTIONS, 'parked must be "replay" or "discard"')),
        parkedSince: v.exactOptional(timeSchema('parkedSince')),
      },
      'an endpoint update must be a JSON object {url?, eventTypes?, description?, rateLimit?, headers?, ordering?, status?, filter?, parked?, parkedSince?}',
    ),
    v.forward(
      v.check(({ status, parked }) => parked === undefined || status === 'enabled', onlyWhenEnabling('parked')),
      ['parked'],
    ),
    v.forward(
      v.check(({ status, parkedSince }) => parkedSince === undefined || status === 'enabled', onlyWhenEnabling('parkedSince')),
      ['parkedSince'],
    ),
    v.forward(
      v.check(({ parked, parkedSince }) => parkedSince === undefined || parked !== 'discard', PARKED_SINCE_DISCARD_MESSAGE),
      ['parkedSince'],
    ),
  );
}

const EVENT_TYPE_MESSAGE = `eventType must be one of ${WEBHOOK_EVENT_TYPES.join(', ')}`;

export const SendTestSchema = jsonObject({ eventType: v.picklist(WEBHOOK_EVENT_TYPES, EVENT_TYPE_MESSAGE) }, 'a test event must be a JSON object {eventType}');

/** Body of a filter check: `{filter}`. */
export const FilterCheckSchema = jsonObject({ filter: endpointFilterSchema }, 'a filter check must be a JSON object {filter}');

export const RotateSecretSchema = jsonObject({ secret: v.exactOptional(webhookSecretSchema()) }, 'a rotation must be a JSON object {secret?}');

/** Body of a recover: `{since}` (RFC 3339), output as epoch ms. */
export const RecoverSchema = jsonObject({ since: timeSchema('since') }, 'a recover must be a JSON object {since}');

/** One key per status, so a status added to `DeliveryStatus` and not here fails to compile. */
const EVERY_DELIVERY_STATUS: Record<DeliveryStatus, true> = { pending: true, delivered: true, failed: true, parked: true };
/** Every delivery status, in documentation order (a listing's `status` filter takes each). */
export const DELIVERY_STATUSES = Object.freeze(Object.keys(EVERY_DELIVERY_STATUS) as DeliveryStatus[]);

const LIMIT_MESSAGE = `limit must be an integer between 1 and ${WEBHOOK_LIST_LIMIT_MAX}`;
const limitSchema = v.pipe(v.number(LIMIT_MESSAGE), v.integer(LIMIT_MESSAGE), v.minValue(1, LIMIT_MESSAGE), v.maxValue(WEBHOOK_LIST_LIMIT_MAX, LIMIT_MESSAGE));
const idSchema = (field: string, prefix: string) => {
  const message = `${field} must be an id starting with "${prefix}"`;
  return v.pipe(v.string(message), v.regex(new RegExp(`^${prefix}[A-Za-z0-9_-]{1,64}$`), message));
};

/** Options of an endpoint listing: `{limit?, after?}` (`after` an endpoint id). */
export const ListEndpointsOptionsSchema = v.strictObject(
  { limit: v.exactOptional(limitSchema), after: v.exactOptional(idSchema('after', ENDPOINT_ID_PREFIX)) },
  objectMessage('list options must be an object {limit?, after?}'),
);

/** Query of a delivery listing: `after` a message id; `since` (inclusive) and `until` (exclusive) RFC 3339 times, output as epoch ms. */
export const ListDeliveriesOptionsSchema = v.strictObject(
  {
    endpoint: v.exactOptional(idSchema('endpoint', ENDPOINT_ID_PREFIX)),
    status: v.exactOptional(v.picklist(DELIVERY_STATUSES, 'status must be "pending", "delivered", "failed" or "parked"')),
    eventType: v.exactOptional(v.picklist(WEBHOOK_EVENT_TYPES, EVENT_TYPE_MESSAGE)),
    since: v.exactOptional(timeSchema('since')),
    until: v.exactOptional(timeSchema('until')),
    limit: v.exactOptional(limitSchema),
    after: v.exactOptional(idSchema('after', 'msg_')),
  },
  objectMessage('list options must be an object {endpoint?, status?, eventType?, since?, until?, limit?, after?}'),
);
