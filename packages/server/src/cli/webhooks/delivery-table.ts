import type { Delivery } from '@plant-store/core';
import { textTable } from './text-table.js';

/** Deliveries as a table: one line each, with the result of the last attempt. */
export function deliveryTable(deliveries: readonly Delivery[]): string {
  if (deliveries.length === 0) return 'no deliveries\n';
  const rows = deliveries.map((delivery) => {
    const last = delivery.attempts.at(-1);
    const result = last === undefined ? '-' : (last.error ?? String(last.statusCode));
    return [
      delivery.id,
      delivery.status,
      String(delivery.attemptCount),
      new Date(delivery.createdAt).toISOString(),
      delivery.nextAttemptAt === undefined ? '-' : new Date(delivery.nextAttemptAt).toISOString(),
      result,
      delivery.endpointId,
    ];
  });
  return textTable(['ID', 'STATUS', 'ATTEMPTS', 'CREATED', 'NEXT ATTEMPT', 'LAST RESULT', 'ENDPOINT'], rows);
}
