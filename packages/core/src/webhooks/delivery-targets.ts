import type { NewDelivery } from '../ports/webhook-outbox.js';
import { secretKey, type WebhookSubscription } from './webhook-subscription.js';

/** Where one delivery goes and how it is signed, as resolved at the time of an attempt. */
export interface DeliveryTarget {
  readonly url: string;
  /** Signing keys, current first; each adds one `v1,` signature (Standard Webhooks allows several, e.g. while a secret is rotated). At least one. */
  readonly keys: readonly Uint8Array[];
}

/**
 * Resolves the endpoint id a delivery refers to. Today the operator's static
 * subscriptions; tenant-managed endpoints (with rotated secrets) plug in
 * here without the dispatcher changing.
 */
export interface DeliveryTargets {
  /** The target of the delivery's endpoint, or `undefined` when there is none any more (the delivery then fails). */
  resolve(delivery: NewDelivery): DeliveryTarget | undefined | Promise<DeliveryTarget | undefined>;
  /** Every endpoint id there is, when the set is fixed: lets the dispatcher skip claiming while all of them are at their cap. @default unknown */
  readonly ids?: readonly string[];
}

/** The targets of static subscriptions, looked up by subscription id (keys decoded once). */
export function subscriptionTargets(subscriptions: readonly WebhookSubscription[]): DeliveryTargets {
  const byId = new Map<string, DeliveryTarget>();
  for (const subscription of subscriptions) {
    const key = secretKey(subscription.secret);
    if (!key) continue; // unreachable: subscriptions are validated by createPlantStore
    byId.set(subscription.id, { url: subscription.url, keys: [key] });
  }
  const ids = Object.freeze([...byId.keys()]);
  return { resolve: (delivery) => byId.get(delivery.endpointId), ids };
}
