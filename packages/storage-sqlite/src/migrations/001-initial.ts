import type { Migration } from './migrate.js';

/**
 * Plants, the webhook outbox and its attempt log. The statements are the ones
 * kysely's schema builder generated for this migration up to version 0.1.0,
 * character for character, so every file has the same schema whichever
 * version created it (sqlite-storage.test.ts checks this against kysely).
 */
export const initial: Migration = {
  up: [
    // Plants are always reached through (tenant, id): the primary key is the
    // clustered index, so keyset listing per tenant reads rows in order.
    'create table "plants" ("tenant" text not null, "id" integer not null, "name" text not null, "tag" text, ' +
      'constraint "plants_pk" primary key ("tenant", "id")) strict, without rowid',
    // Tag-filtered listings: one tag reads its plants already in id order.
    'create index "plants_tenant_tag_id" on "plants" ("tenant", "tag", "id") where "tag" is not null',

    'create table "webhook_deliveries" ("id" text primary key, "tenant" text not null, "endpoint" text not null, ' +
      '"event_type" text not null, "payload" text not null, ' +
      `"status" text not null check (status in ('pending', 'delivered', 'failed')), ` +
      '"attempt_count" integer default 0 not null, "next_attempt_at" integer, "lease_owner" text, "lease_expires_at" integer, ' +
      '"created_at" integer not null, "updated_at" integer not null) strict',
    // Claiming scans only pending rows, earliest due first; delivered history costs nothing.
    `create index "webhook_deliveries_due" on "webhook_deliveries" ("next_attempt_at") where "status" = 'pending'`,
    // Operators list newest first.
    'create index "webhook_deliveries_created_at" on "webhook_deliveries" ("created_at")',

    'create table "webhook_attempts" ("delivery_id" text not null references "webhook_deliveries" ("id") on delete cascade, ' +
      '"attempt" integer not null, "at" integer not null, "duration_ms" integer not null, "status_code" integer, "error" text, ' +
      'constraint "webhook_attempts_pk" primary key ("delivery_id", "attempt")) strict, without rowid',
  ],
};
