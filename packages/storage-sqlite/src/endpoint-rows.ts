import type { WebhookEndpoint, WebhookEndpointStatus, WebhookEventType } from '@plant-store/core';
import type { EndpointHealth, EndpointSecrets } from '@plant-store/core/adapter';

/** A webhook_endpoints row (integers read as bigint: the connection uses safe integers). */
export interface EndpointRow {
  id: string;
  tenant: string;
  url: string;
  /** The event types, a JSON array. */
  event_types: string;
  description: string | null;
  rate_limit: bigint | null;
  /** The custom headers, a JSON object. */
  headers: string | null;
  status: WebhookEndpointStatus;
  disabled_reason: string | null;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: bigint | null;
  failing_since: bigint | null;
  exhausted_at: bigint | null;
  created_at: bigint;
  updated_at: bigint;
}

/** The health columns an attempt note returns. */
export type EndpointHealthRow = Pick<EndpointRow, 'failing_since' | 'exhausted_at'>;

export function toEndpoint(row: EndpointRow): WebhookEndpoint {
  return {
    id: row.id,
    tenant: row.tenant,
    url: row.url,
    eventTypes: JSON.parse(row.event_types) as WebhookEventType[],
    ...(row.description !== null ? { description: row.description } : {}),
    ...(row.rate_limit !== null ? { rateLimit: Number(row.rate_limit) } : {}),
    ...(row.headers !== null ? { headers: JSON.parse(row.headers) as Record<string, string> } : {}),
    status: row.status,
    ...(row.disabled_reason !== null && row.status === 'disabled' ? { disabledReason: row.disabled_reason } : {}),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

export function toSecrets(row: EndpointRow): EndpointSecrets {
  if (row.previous_secret === null || row.previous_secret_expires_at === null) return { current: row.secret };
  return { current: row.secret, previous: row.previous_secret, previousExpiresAt: Number(row.previous_secret_expires_at) };
}

export function toHealth(row: EndpointHealthRow): EndpointHealth {
  return {
    ...(row.failing_since !== null ? { failingSince: Number(row.failing_since) } : {}),
    ...(row.exhausted_at !== null ? { exhaustedAt: Number(row.exhausted_at) } : {}),
  };
}
