import type { Migration } from 'kysely';
import { initial } from './001-initial.js';
import { webhookEndpoints } from './002-webhook-endpoints.js';
import { deliveryTraceparent } from './006-delivery-traceparent.js';

/**
 * Every schema version, applied in name order by kysely's Migrator. Listed in
 * code rather than read from a folder, so bundling or building never loses
 * one. Never edit or rename an applied migration: add the next number.
 */
export const MIGRATIONS: Readonly<Record<string, Migration>> = {
  '001-initial': initial,
  '002-webhook-endpoints': webhookEndpoints,
  '006-delivery-traceparent': deliveryTraceparent,
};
