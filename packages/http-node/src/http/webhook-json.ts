import { maskUrlCredentials, type Delivery, type DeliveryAttempt, type DestinationKind, type EndpointStats, type WebhookEndpoint } from '@plant-store/core';
import { destinationKind, filterText } from '@plant-store/core/adapter';

// Shared with the operator CLI's --json, so both show one shape. A delivery's payload is embedded as the exact JSON text
// that is signed and sent, so int64 ids stay exact.

const time = (ms: number): string => new Date(ms).toISOString();

/** Never with its secret. */
export function endpointJson(endpoint: WebhookEndpoint): string {
  return withFilter(JSON.stringify(endpointObject(endpoint)), endpoint);
}

export function endpointWithSecretJson(endpoint: WebhookEndpoint, secret: string): string {
  return withFilter(JSON.stringify({ ...endpointObject(endpoint), secret }), endpoint);
}

/** The endpoint's JSON with its filter last, written by the core's codec: its integers are bigints, exact. */
function withFilter(json: string, endpoint: WebhookEndpoint): string {
  return endpoint.filter === undefined ? json : `${json.slice(0, -1)},"filter":${filterText(endpoint.filter)}}`;
}

function endpointObject(endpoint: WebhookEndpoint): Record<string, unknown> {
  // A broker URL's credentials are a secret like the signing one: never shown back.
  const json: Record<string, unknown> = {
    id: endpoint.id,
    url: maskUrlCredentials(endpoint.url),
    kind: endpointKind(endpoint.url),
    eventTypes: endpoint.eventTypes,
  };
  if (endpoint.description !== undefined) json.description = endpoint.description;
  if (endpoint.rateLimit !== undefined) json.rateLimit = endpoint.rateLimit;
  if (endpoint.headers !== undefined) json.headers = endpoint.headers;
  json.ordering = endpoint.ordering;
  json.status = endpoint.status;
  if (endpoint.disabledReason !== undefined) json.disabledReason = endpoint.disabledReason;
  // Absent when none, as the storages give it; a 0 from one that does not would tell nothing either.
  if (endpoint.parkedDropped !== undefined && endpoint.parkedDropped > 0) json.parkedDropped = endpoint.parkedDropped;
  json.createdAt = time(endpoint.createdAt);
  json.updatedAt = time(endpoint.updatedAt);
  return json;
}

/** The destination kind of a stored endpoint URL (derived, not stored: the scheme says it); `http` for one that no longer parses. */
export function endpointKind(url: string): DestinationKind {
  return (URL.canParse(url) && destinationKind(new URL(url))) || 'http';
}

export function deliveryJson(delivery: Delivery): string {
  const head = JSON.stringify({ id: delivery.id, endpointId: delivery.endpointId, eventType: delivery.eventType });
  const tail: Record<string, unknown> = { status: delivery.status, attempts: delivery.attempts.map(attemptObject) };
  if (delivery.test) tail.test = true;
  if (delivery.nextAttemptAt !== undefined) tail.nextAttemptAt = time(delivery.nextAttemptAt);
  if (delivery.waitingBehind !== undefined) tail.waitingBehind = delivery.waitingBehind;
  tail.createdAt = time(delivery.createdAt);
  return `${head.slice(0, -1)},"payload":${delivery.payload},${JSON.stringify(tail).slice(1)}`;
}

function attemptObject(attempt: DeliveryAttempt): Record<string, unknown> {
  const json: Record<string, unknown> = { at: time(attempt.at), durationMs: attempt.durationMs };
  if (attempt.statusCode !== undefined) json.statusCode = attempt.statusCode;
  if (attempt.error !== undefined) json.error = attempt.error;
  if (attempt.response !== undefined) json.response = attempt.response;
  return json;
}

export function endpointStatsJson(stats: EndpointStats): string {
  const { endpointId, lastAttempt, windows, hourly } = stats;
  const last = lastAttempt && { at: time(lastAttempt.at), ...(lastAttempt.statusCode !== undefined ? { statusCode: lastAttempt.statusCode } : {}) };
  const hours = hourly.map(({ start, succeeded, failed }) => ({ start: time(start), succeeded, failed }));
  return JSON.stringify({ endpointId, ...(last ? { lastAttempt: last } : {}), windows, hourly: hours });
}

export function jsonArray(items: readonly string[]): string {
  return `[${items.join(',')}]`;
}
