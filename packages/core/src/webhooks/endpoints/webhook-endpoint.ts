import { randomBytes } from 'node:crypto';
import { ConfigurationError } from '../../errors.js';
import type { Delivery } from '../../ports/webhook-outbox.js';
import type { EndpointFilter } from './endpoint-filter.js';

/** The events a tenant endpoint can subscribe to: its plants', and operational ones about its other endpoints. */
export type WebhookEventType = 'plant.created' | 'plant.deleted' | OperationalEventType;

/** Events about the webhooks themselves, queued by the dispatcher rather than by a plant write. */
export type OperationalEventType = 'webhook.endpoint.disabled' | 'webhook.delivery.failed';

/** Every event type, in documentation order. */
export const WEBHOOK_EVENT_TYPES: readonly WebhookEventType[] = Object.freeze([
  'plant.created',
  'plant.deleted',
  'webhook.endpoint.disabled',
  'webhook.delivery.failed',
]);

/**
 * How an endpoint's messages are ordered. `plant`: the messages about one plant are attempted one at a time, in the
 * order they were queued (a later one waits while an earlier one is pending, retries included); other plants' go on.
 */
export type EndpointOrdering = 'none' | 'plant';

export const ENDPOINT_ORDERINGS: readonly EndpointOrdering[] = Object.freeze(['none', 'plant']);

/** Whether an endpoint gets deliveries (`disabled`: by the tenant, an operator, or automatically after failing). */
export type WebhookEndpointStatus = 'enabled' | 'disabled';

/** A tenant's webhook endpoint as stored and returned; never holds secrets. Times are epoch ms. */
export interface WebhookEndpoint {
  /** `ep_` and 27 url-safe random characters. */
  readonly id: string;
  readonly tenant: string;
  readonly url: string;
  /** At least one, no repeats. */
  readonly eventTypes: readonly WebhookEventType[];
  readonly description?: string;
  /** Deliveries per second to this endpoint (throttled, never dropped). */
  readonly rateLimit?: number;
  /** Request headers sent on every attempt to it, as the tenant wrote them; absent when none. */
  readonly headers?: Readonly<Record<string, string>>;
  readonly ordering: EndpointOrdering;
  /** Only events that match it are queued to the endpoint; absent: every event it subscribes to. */
  readonly filter?: EndpointFilter;
  readonly status: WebhookEndpointStatus;
  /** Why it is disabled; only while disabled. */
  readonly disabledReason?: string;
  /** How many parked messages were dropped (the oldest first, past the storage's bound) since it was last disabled; absent when none. */
  readonly parkedDropped?: number;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** One page of endpoints in ascending id order; `nextAfter` (the last id) when more remain. */
export interface EndpointPage {
  readonly endpoints: WebhookEndpoint[];
  readonly nextAfter?: string;
}

/** One page of deliveries, newest first; `nextAfter` (the last message id) when more remain. */
export interface DeliveryPage {
  readonly deliveries: Delivery[];
  readonly nextAfter?: string;
}

/** Prefix of tenant endpoint ids; operator subscription ids never start with it. */
export const ENDPOINT_ID_PREFIX = 'ep_';

/** A new endpoint id: `ep_` and 160 random bits in base64url (27 characters). */
export function newEndpointId(): string {
  return `${ENDPOINT_ID_PREFIX}${randomBytes(20).toString('base64url')}`;
}

/** Whether a delivery's endpoint id names a tenant endpoint (as opposed to an operator subscription). */
export function isTenantEndpointId(endpointId: string): boolean {
  return endpointId.startsWith(ENDPOINT_ID_PREFIX);
}

/** A new signing secret: `whsec_` and base64 of 32 random bytes. */
export function newEndpointSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** Attempt-log error of the deliveries a delete ended. */
export const ENDPOINT_DELETED_ERROR = 'endpoint deleted';
/** Attempt-log error of an attempt that found its endpoint disabled (the delivery was parked, not sent); before parking, of the deliveries a disable ended. */
export const ENDPOINT_DISABLED_ERROR = 'endpoint disabled';
/** Attempt-log error of the parked deliveries an enable discarded. */
export const PARKED_DISCARDED_ERROR = 'parked message discarded';
/** How many parked messages a storage keeps per endpoint unless told otherwise (its `parkedLimit` option). */
export const DEFAULT_PARKED_LIMIT = 10_000;

/** A storage's `parkedLimit` option, checked: a whole number ≥ 0, `DEFAULT_PARKED_LIMIT` when absent. */
export function parkedLimitOption(value: number | undefined): number {
  if (value === undefined) return DEFAULT_PARKED_LIMIT;
  if (!Number.isSafeInteger(value) || value < 0) throw new ConfigurationError('parkedLimit', `must be a whole number of at least 0, not ${value}`);
  return value;
}

/** What enabling does with the messages kept while the endpoint was disabled (`ParkedChoice.action`). */
export const PARKED_ACTIONS = ['replay', 'discard'] as const;

/** What enabling a disabled endpoint does with the messages parked for it while it was off. */
export interface ParkedChoice {
  /** `replay`: send them again, in order; `discard`: end them failed (they can still be recovered). */
  readonly action: (typeof PARKED_ACTIONS)[number];
  /** Replay only: those created before this time (epoch ms) are discarded. @default all replayed */
  readonly since?: number;
}

/** `disabledReason` when the tenant disables its endpoint. */
export const DISABLED_BY_TENANT = 'disabled by the tenant';

/** What a disabled endpoint's notice tells the tenant to do once its receiver works again. */
export function howToEnable(endpointId: string): string {
  return (
    `its events are kept (parked) while it is disabled; PATCH /webhooks/endpoints/${endpointId} with {"status":"enabled"} replays them in order, ` +
    'add "parkedSince" (a time) to replay only the later ones, or "parked":"discard" to drop them'
  );
}
