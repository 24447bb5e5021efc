import { plantFromJson } from './plant.js';
import { idFromJson } from './plant-id.js';
import type {
  WebhookAttempt,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointStats,
  WebhookHourStats,
  WebhookEndpointWithSecret,
  WebhookEventTypeInfo,
  WebhookPayload,
  WebhookSession,
} from './webhook-types.js';

// Readers from parsed JSON to the types of webhook-types.ts: undefined when a promised field is missing or of the
// wrong kind; unknown fields pass through, so a service that adds one does not break older clients.

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** An RFC 3339 time (or epoch milliseconds) as a Date; undefined when it is neither. */
export function dateFromJson(value: unknown): Date | undefined {
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** A webhook body: the plant of `plant.created`, `{ id }` of `plant.deleted`, or an operational event (its `at` a Date). */
export function payloadFromJson(value: unknown): WebhookPayload | undefined {
  if (!isObject(value)) return undefined;
  if ('name' in value) return plantFromJson(value);
  if (typeof value['endpointId'] === 'string') {
    const at = dateFromJson(value['at']);
    return at === undefined ? undefined : ({ ...value, at } as unknown as WebhookPayload);
  }
  const id = idFromJson(value['id']);
  return id === undefined ? undefined : { ...value, id };
}

export function endpointFromJson(value: unknown): WebhookEndpoint | undefined {
  if (!isObject(value)) return undefined;
  const { id, url, eventTypes, status } = value;
  const createdAt = dateFromJson(value['createdAt']);
  const updatedAt = dateFromJson(value['updatedAt']);
  if (typeof id !== 'string' || typeof url !== 'string' || typeof status !== 'string' || !Array.isArray(eventTypes)) return undefined;
  if (createdAt === undefined || updatedAt === undefined) return undefined;
  return { ...value, createdAt, updatedAt } as unknown as WebhookEndpoint;
}

export function endpointWithSecretFromJson(value: unknown): WebhookEndpointWithSecret | undefined {
  const endpoint = endpointFromJson(value);
  return endpoint && typeof (value as Json)['secret'] === 'string' ? (endpoint as WebhookEndpointWithSecret) : undefined;
}

function attemptFromJson(value: unknown): WebhookAttempt | undefined {
  if (!isObject(value) || typeof value['durationMs'] !== 'number') return undefined;
  const at = dateFromJson(value['at']);
  return at === undefined ? undefined : ({ ...value, at } as unknown as WebhookAttempt);
}

export function deliveryFromJson(value: unknown): WebhookDelivery | undefined {
  if (!isObject(value)) return undefined;
  const { id, endpointId, eventType, status, nextAttemptAt: rawNext, ...rest } = value;
  if (typeof id !== 'string' || typeof endpointId !== 'string' || typeof eventType !== 'string' || typeof status !== 'string') return undefined;
  const payload = payloadFromJson(value['payload']);
  const createdAt = dateFromJson(value['createdAt']);
  const attempts = Array.isArray(value['attempts']) ? value['attempts'].map(attemptFromJson) : undefined;
  // null and absent both mean "no attempt scheduled".
  const nextAttemptAt = rawNext == null ? undefined : dateFromJson(rawNext);
  if (payload === undefined || createdAt === undefined || attempts === undefined || attempts.includes(undefined)) return undefined;
  if (rawNext != null && nextAttemptAt === undefined) return undefined;
  const delivery = { ...rest, id, endpointId, eventType, status, payload, attempts, createdAt };
  return (nextAttemptAt === undefined ? delivery : { ...delivery, nextAttemptAt }) as unknown as WebhookDelivery;
}

/** `{ "secret": "whsec_…" }` → the secret. */
export function secretFromJson(value: unknown): string | undefined {
  return isObject(value) && typeof value['secret'] === 'string' ? value['secret'] : undefined;
}

/** `{ "requeued": n }` → n. */
export function requeuedFromJson(value: unknown): number | undefined {
  return isObject(value) && typeof value['requeued'] === 'number' ? value['requeued'] : undefined;
}

export function sessionFromJson(value: unknown): WebhookSession | undefined {
  if (!isObject(value)) return undefined;
  const { tenant, subject, scopes, expiresAt: rawExpiresAt } = value;
  if (typeof tenant !== 'string' || typeof subject !== 'string' || !Array.isArray(scopes)) return undefined;
  if (rawExpiresAt === undefined) return { ...value, tenant, subject, scopes } as WebhookSession;
  const expiresAt = dateFromJson(rawExpiresAt);
  return expiresAt === undefined ? undefined : ({ ...value, tenant, subject, scopes, expiresAt } as WebhookSession);
}

/** The event catalogue: an array of `{type, description, schema, example}`. */
export function eventTypesFromJson(value: unknown): WebhookEventTypeInfo[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const entries = value.map((entry): WebhookEventTypeInfo | undefined => {
    if (!isObject(entry) || typeof entry['type'] !== 'string' || typeof entry['description'] !== 'string' || !isObject(entry['schema'])) return undefined;
    const example = payloadFromJson(entry['example']);
    return example === undefined ? undefined : ({ ...entry, example } as unknown as WebhookEventTypeInfo);
  });
  return entries.includes(undefined) ? undefined : (entries as WebhookEventTypeInfo[]);
}

export function endpointStatsFromJson(value: unknown): WebhookEndpointStats | undefined {
  if (!isObject(value) || typeof value['endpointId'] !== 'string' || !isObject(value['windows'])) return undefined;
  const windows = value['windows'];
  for (const name of ['1h', '24h', '7d']) {
    const window = windows[name];
    if (!isObject(window) || typeof window['succeeded'] !== 'number' || typeof window['failed'] !== 'number') return undefined;
  }
  const hourly = Array.isArray(value['hourly']) ? value['hourly'].map(hourFromJson) : [];
  if (hourly.includes(undefined)) return undefined;
  const { lastAttempt: rawLast, ...rest } = value;
  if (rawLast === undefined) return { ...rest, hourly } as unknown as WebhookEndpointStats;
  const at = isObject(rawLast) ? dateFromJson(rawLast['at']) : undefined;
  return at === undefined ? undefined : ({ ...rest, hourly, lastAttempt: { ...(rawLast as Json), at } } as unknown as WebhookEndpointStats);
}

function hourFromJson(value: unknown): WebhookHourStats | undefined {
  if (!isObject(value) || typeof value['succeeded'] !== 'number' || typeof value['failed'] !== 'number') return undefined;
  const start = dateFromJson(value['start']);
  return start === undefined ? undefined : { start, succeeded: value['succeeded'], failed: value['failed'] };
}
