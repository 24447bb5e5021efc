import type { Delivery } from '@plant-store/core';
import { textTable } from './text-table.js';

const time = (ms: number | undefined): string => (ms === undefined ? '-' : new Date(ms).toISOString());

/** When the next attempt is due; a held delivery has none until the one it waits for ends, a parked one until its endpoint is enabled. */
const nextAttempt = (delivery: Delivery): string => {
  if (delivery.waitingBehind !== undefined) return `waiting behind ${delivery.waitingBehind}`;
  return delivery.status === 'parked' ? 'when its endpoint is enabled' : time(delivery.nextAttemptAt);
};

export function deliveryTable(deliveries: readonly Delivery[]): string {
  if (deliveries.length === 0) return 'no deliveries\n';
  const rows = deliveries.map((delivery) => {
    const last = delivery.attempts.at(-1);
    const result = last === undefined ? '-' : (last.error ?? String(last.statusCode));
    return [
      delivery.id,
      delivery.tenant,
      delivery.eventType,
      delivery.status,
      String(delivery.attemptCount),
      time(delivery.createdAt),
      nextAttempt(delivery),
      result,
      delivery.endpointId,
    ];
  });
  return textTable(['ID', 'TENANT', 'EVENT', 'STATUS', 'ATTEMPTS', 'CREATED', 'NEXT ATTEMPT', 'LAST RESULT', 'ENDPOINT'], rows);
}

export function deliveryDetails(delivery: Delivery): string {
  const fields = [
    ['id', delivery.id],
    ['tenant', delivery.tenant],
    ['endpoint', delivery.endpointId],
    ['event', delivery.eventType],
    ['status', delivery.status],
    ['created', time(delivery.createdAt)],
    ['next attempt', nextAttempt(delivery)],
    ['payload', delivery.payload],
  ];
  const head = fields.map(([name, value]) => `${`${name}:`.padEnd(14)}${value}\n`).join('');
  if (delivery.attempts.length === 0) {
    if (delivery.status === 'parked') return `${head}\nno attempts yet: kept while its endpoint is disabled, replayed or discarded when it is enabled\n`;
    if (delivery.waitingBehind === undefined) return `${head}\nno attempts yet\n`;
    return `${head}\nwaiting behind ${delivery.waitingBehind} (an earlier message about the same plant): no attempt before that one ends\n`;
  }
  const rows = delivery.attempts.map((attempt) => [
    time(attempt.at),
    `${attempt.durationMs} ms`,
    attempt.statusCode === undefined ? '-' : String(attempt.statusCode),
    attempt.error ?? (attempt.interrupted ? 'interrupted' : '-'),
    (attempt.response ?? '-').replace(/\s+/g, ' ').slice(0, 80),
  ]);
  return `${head}\n${textTable(['AT', 'DURATION', 'STATUS', 'ERROR', 'RESPONSE'], rows)}`;
}
