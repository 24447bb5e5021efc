import type { Migration } from 'kysely';
import { initial } from './001-initial.js';
import { webhookEndpoints } from './002-webhook-endpoints.js';
import { endpointRateBudgets } from './003-endpoint-rate-budgets.js';
import { portal } from './004-portal.js';
import { deliveryTraceparent } from './005-delivery-traceparent.js';
import { outboxAutovacuum } from './006-outbox-autovacuum.js';
import { endpointDue } from './007-endpoint-due.js';
import { endpointHeaders } from './008-endpoint-headers.js';
import { deliveryLines } from './009-delivery-lines.js';
import { endpointFilters } from './010-endpoint-filters.js';
import { parkedDeliveries } from './011-parked-deliveries.js';

/** Every schema version, applied in name order (listed in code, so a bundle never loses one). Never edit or rename an applied migration: add the next number. */
export const MIGRATIONS: Readonly<Record<string, Migration>> = {
  '001-initial': initial,
  '002-webhook-endpoints': webhookEndpoints,
  '003-endpoint-rate-budgets': endpointRateBudgets,
  '004-portal': portal,
  '005-delivery-traceparent': deliveryTraceparent,
  '006-outbox-autovacuum': outboxAutovacuum,
  '007-endpoint-due': endpointDue,
  '008-endpoint-headers': endpointHeaders,
  '009-delivery-lines': deliveryLines,
  '010-endpoint-filters': endpointFilters,
  '011-parked-deliveries': parkedDeliveries,
};
