import { ValidationError } from '@plant-store/core';
import { WEBHOOK_LIST_LIMIT_MAX } from '@plant-store/core/adapter';
import { singleQueryParams } from './single-query-params.js';

const DIGITS = /^\d{1,10}$/;

export interface EndpointListQuery {
  readonly limit?: number;
  readonly after?: string;
}

export interface DeliveryListQuery extends EndpointListQuery {
  readonly endpoint?: string;
  readonly status?: string;
  readonly eventType?: string;
  readonly since?: string;
  readonly until?: string;
}

/** `limit` must be digits here; its range and what `after` may be are the core's to check. */
export function parseEndpointListQuery(query: string): EndpointListQuery {
  const { limit, after } = singleQueryParams(query, ['limit', 'after']);
  return withDefined({ limit: limit === undefined ? undefined : parseLimit(limit), after });
}

const DELIVERY_PARAMETERS = ['endpoint', 'status', 'eventType', 'since', 'until', 'limit', 'after'] as const;

export function parseDeliveryListQuery(query: string): DeliveryListQuery {
  const { endpoint, status, eventType, since, until, limit, after } = singleQueryParams(query, DELIVERY_PARAMETERS);
  return withDefined({ endpoint, status, eventType, since, until, limit: limit === undefined ? undefined : parseLimit(limit), after });
}

function parseLimit(text: string): number {
  // The core's own message for a limit out of range, so both read the same.
  if (!DIGITS.test(text)) throw ValidationError.of('limit', `limit must be an integer between 1 and ${WEBHOOK_LIST_LIMIT_MAX}`);
  return Number(text);
}

// The core's schemas refuse `undefined` for optional keys.
function withDefined<T extends object>(object: T): T {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined)) as T;
}
