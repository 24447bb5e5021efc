import { subscriptionTargets, type DeliveryTargets } from '../webhooks/delivery-targets.js';
import { validateSubscriptions, type WebhookSubscription } from '../webhooks/webhook-subscription.js';

/** How a replacement changed the subscriptions; one whose url, secret or tenant changed counts as removed and added. */
export interface SubscriptionChanges {
  readonly added: number;
  readonly removed: number;
  readonly total: number;
}

/** The operator's subscriptions, replaceable while the store runs: a queued delivery goes to its subscription as it is at the attempt, and fails when it is gone. */
export interface OperatorSubscriptions {
  readonly list: readonly WebhookSubscription[];
  replace(input: readonly unknown[]): SubscriptionChanges;
}

/** The store's part behind `allTenants.subscriptions`, which also tells the dispatcher where deliveries go. */
export class ReplaceableSubscriptions implements OperatorSubscriptions {
  #list: readonly WebhookSubscription[];
  #targets: DeliveryTargets;

  constructor(list: readonly WebhookSubscription[]) {
    this.#list = list;
    this.#targets = subscriptionTargets(list);
  }

  get list(): readonly WebhookSubscription[] {
    return this.#list;
  }

  get targets(): DeliveryTargets {
    return this.#targets;
  }

  replace(input: readonly unknown[]): SubscriptionChanges {
    const next = validateSubscriptions(input);
    const before = keys(this.#list);
    const after = keys(next);
    this.#list = next;
    this.#targets = subscriptionTargets(next);
    return { added: [...after].filter((key) => !before.has(key)).length, removed: [...before].filter((key) => !after.has(key)).length, total: after.size };
  }
}

function keys(list: readonly WebhookSubscription[]): Set<string> {
  return new Set(list.map(({ id, url, secret, tenant }) => JSON.stringify([id, url, secret, tenant])));
}
