import type { Migration } from 'kysely';

/** Every schema version, applied in name order (listed in code, so a bundle never loses one). Never edit or rename an applied migration: add the next number. */
export const MIGRATIONS: Readonly<Record<string, () => Promise<Migration>>> = {
  '001-initial': async () => (await import('./001-initial.js')).initial,
  '002-endpoint-ids': async () => (await import('./002-endpoint-ids.js')).endpointIds,
  '003-webhook-endpoints': async () => (await import('./003-webhook-endpoints.js')).webhookEndpoints,
  '004-webhook-retention': async () => (await import('./004-webhook-retention.js')).webhookRetention,
  '005-portal': async () => (await import('./005-portal.js')).portal,
  '006-delivery-traceparent': async () => (await import('./006-delivery-traceparent.js')).deliveryTraceparent,
  '007-endpoint-due': async () => (await import('./007-endpoint-due.js')).endpointDue,
  '008-due-created-at': async () => (await import('./008-due-created-at.js')).dueCreatedAt,
  '009-endpoint-headers': async () => (await import('./009-endpoint-headers.js')).endpointHeaders,
  '010-delivery-lines': async () => (await import('./010-delivery-lines.js')).deliveryLines,
  '011-endpoint-filters': async () => (await import('./011-endpoint-filters.js')).endpointFilters,
  '012-parked-deliveries': async () => (await import('./012-parked-deliveries.js')).parkedDeliveries,
};
