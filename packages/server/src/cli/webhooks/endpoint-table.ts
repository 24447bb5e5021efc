import { maskUrlCredentials, type WebhookEndpoint } from '@plant-store/core';
import { textTable } from './text-table.js';

export function endpointTable(endpoints: readonly WebhookEndpoint[]): string {
  if (endpoints.length === 0) return 'no endpoints\n';
  const rows = endpoints.map((endpoint) => [
    endpoint.id,
    endpoint.tenant,
    endpoint.status,
    endpoint.eventTypes.join(','),
    maskUrlCredentials(endpoint.url),
    endpoint.disabledReason ?? '-',
  ]);
  return textTable(['ID', 'TENANT', 'STATUS', 'EVENTS', 'URL', 'DISABLED REASON'], rows);
}
