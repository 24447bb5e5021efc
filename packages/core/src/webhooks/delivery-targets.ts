import type { Clock } from '../ports/clock.js';
import type { WebhookEndpointRepository } from '../ports/webhook-endpoint-repository.js';
import type { NewDelivery } from '../ports/webhook-outbox.js';
import { MalformedSecretError, signingKey, type SigningKey } from './webhook-signature.js';
import { secretKey, type WebhookSubscription } from './webhook-subscription.js';

/** Where one delivery goes and how it is signed, as resolved at the time of an attempt. */
export interface DeliveryTarget {
  readonly url: string;
  /** Signing keys, current first; each adds one `v1,` or `v1a,` signature (Standard Webhooks allows several, e.g. while a secret is rotated). At least one. */
  readonly keys: readonly SigningKey[];
  /** The endpoint's own request headers, sent on every attempt. @default none */
  readonly headers?: Readonly<Record<string, string>>;
  /** The destination is not trusted (a tenant's endpoint): the transport refuses non-public addresses. @default false */
  readonly restrictDestination?: boolean;
  /** Attempts per second to this endpoint. @default unlimited */
  readonly rateLimit?: number;
  /** The endpoint is disabled: no attempt is made, and the delivery is parked for it until it is enabled again. */
  readonly disabled?: true;
  /** Set when a live secret cannot sign (malformed): the attempt fails with this reason and is retried, never sent short of a signature. */
  readonly signingError?: string;
}

/** Resolves a delivery's endpoint id: operator subscriptions, and tenants' endpoints (as they are at each attempt, so URL changes and rotations apply to queued messages). */
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

/**
 * The targets of tenants' endpoints (read through `endpoints`, the store's cache): restricted (unless private ones are allowed),
 * rate-limited, signed with every live secret. One the cache says is disabled is read again from `stored` before its delivery is
 * parked: a kept copy may predate an enable made elsewhere, and a message parked after the enable's replay would wait for the next one.
 */
export function endpointTargets(
  endpoints: Pick<WebhookEndpointRepository, 'find'>,
  clock: Clock,
  allowPrivateDestinations = false,
  stored: Pick<WebhookEndpointRepository, 'find'> = endpoints,
): DeliveryTargets {
  return {
    async resolve(delivery) {
      let found = await endpoints.find(delivery.endpointId);
      if (found?.endpoint.status === 'disabled' && stored !== endpoints) found = await stored.find(delivery.endpointId);
      if (!found) return undefined;
      const { endpoint, secrets } = found;
      const live = secrets.previous !== undefined && clock.now() < (secrets.previousExpiresAt ?? 0) ? [secrets.current, secrets.previous] : [secrets.current];
      const keys = live.map((secret) => signingKey(secret));
      const malformed = keys.indexOf(undefined);
      return {
        url: endpoint.url,
        keys: keys.filter((key) => key !== undefined),
        ...(malformed === -1
          ? {}
          : { signingError: new MalformedSecretError(malformed === 0 ? "the endpoint's current secret" : "the endpoint's previous secret").message }),
        ...(allowPrivateDestinations ? {} : { restrictDestination: true }),
        ...(endpoint.rateLimit !== undefined ? { rateLimit: endpoint.rateLimit } : {}),
        ...(endpoint.headers !== undefined ? { headers: endpoint.headers } : {}),
        ...(endpoint.status === 'disabled' ? { disabled: true } : {}),
      };
    },
  };
}
