import { maskUrlCredentials, type WebhookEndpoint } from '@plant-store/core';
import { endpointKind } from '@plant-store/http-node/webhook-json';
import { filterText } from '@plant-store/core/adapter';
import { textTable } from './text-table.js';

/** `signatures`: each endpoint's signature kind (`-` for one missing, deleted meanwhile). */
export function endpointTable(endpoints: readonly WebhookEndpoint[], signatures: ReadonlyMap<string, string>): string {
  if (endpoints.length === 0) return 'no endpoints\n';
  const rows = endpoints.map((endpoint) => [
    endpoint.id,
    endpoint.tenant,
    endpoint.status,
    endpointKind(endpoint.url),
    endpoint.eventTypes.join(','),
    endpoint.ordering,
    signatures.get(endpoint.id) ?? '-',
    // Names only: values may be credentials.
    Object.keys(endpoint.headers ?? {}).join(',') || '-',
    endpoint.filter ? filterText(endpoint.filter) : '-',
    maskUrlCredentials(endpoint.url),
    // Parked messages the storage's bound dropped since it was last disabled.
    endpoint.parkedDropped ? String(endpoint.parkedDropped) : '-',
    endpoint.disabledReason ?? '-',
  ]);
  return textTable(['ID', 'TENANT', 'STATUS', 'KIND', 'EVENTS', 'ORDERING', 'SIGNATURE', 'HEADERS', 'FILTER', 'URL', 'DROPPED', 'DISABLED REASON'], rows);
}
