import { ValidationError, type DeliveryStatus } from '@plant-store/core';
import { singleQueryParams } from './single-query-params.js';

const DIGITS = /^\d{1,10}$/;
const DELIVERY_STATUSES: readonly DeliveryStatus[] = ['pending', 'delivered', 'failed'];

/** Query of `GET /webhooks/endpoints`. */
export interface EndpointListQuery {
  readonly limit?: number;
  readonly after?: string;
}

/** Query of `GET /webhooks/deliveries`. */
export interface DeliveryListQuery extends EndpointListQuery {
  readonly endpoint?: string;
  readonly status?: DeliveryStatus;
}

/**
 * `limit` and `after` of a webhooks listing. `limit` must be digits here
 * (`limit=abc` is a 400 naming it); its range, and what `after` may be, is
 * the core's to check (it names the parameter too).
 */
export function parseEndpointListQuery(query: string): EndpointListQuery {
  const { limit, after } = singleQueryParams(query, ['limit', 'after']);
  return withDefined({ limit: limit === undefined ? undefined : parseLimit(limit), after });
}

/** `endpoint`, `status`, `limit` and `after` of `GET /webhooks/deliveries`. */
export function parseDeliveryListQuery(query: string): DeliveryListQuery {
  const { endpoint, status, limit, after } = singleQueryParams(query, ['endpoint', 'status', 'limit', 'after']);
  if (status !== undefined && !DELIVERY_STATUSES.includes(status as DeliveryStatus)) {
    throw ValidationError.of('status', `status must be one of ${DELIVERY_STATUSES.join(', ')}`);
  }
  return withDefined({
    endpoint,
    status: status as DeliveryStatus | undefined,
    limit: limit === undefined ? undefined : parseLimit(limit),
    after,
  });
}

function parseLimit(text: string): number {
  if (!DIGITS.test(text)) throw ValidationError.of('limit', 'limit must be a positive integer');
  return Number(text);
}

/** The object without its undefined members (the core's schemas refuse `undefined` for optional keys). */
function withDefined<T extends object>(object: T): T {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined)) as T;
}
