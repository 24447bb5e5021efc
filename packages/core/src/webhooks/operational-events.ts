import type { Clock } from '../ports/clock.js';
import type { WebhookEndpointRepository } from '../ports/webhook-endpoint-repository.js';
import type { ClaimedDelivery, NewDelivery, WebhookOutbox } from '../ports/webhook-outbox.js';
import type { WebhookSendOutcome } from '../ports/webhook-transport.js';
import { filterEvent, matchesFilter } from './endpoints/endpoint-filter.js';
import { ENDPOINT_DELETED_ERROR, howToEnable, isTenantEndpointId, type OperationalEventType, type WebhookEndpoint } from './endpoints/webhook-endpoint.js';
import { newMessageId } from './message-id.js';
import { subscriptionMatches, type WebhookSubscription } from './webhook-subscription.js';

export interface OperationalEventsOptions {
  readonly outbox: WebhookOutbox;
  readonly endpoints: WebhookEndpointRepository;
  /** The operator's subscriptions as they are now (they can be replaced while the store runs): those listing an operational type get it for every tenant they match. */
  readonly subscriptions: () => readonly WebhookSubscription[];
  readonly clock: Clock;
}

const PAGE = 100;

/**
 * Queues events about the webhooks themselves to the tenant's other enabled endpoints subscribed to the type, and to the operator's
 * subscriptions listing it (with `tenant`). Queued after the outcome is recorded, not in its transaction: a crash loses only the notice.
 */
export class OperationalEvents {
  readonly #options: OperationalEventsOptions;

  constructor(options: OperationalEventsOptions) {
    this.#options = options;
  }

  /** An endpoint was disabled automatically at `at` (epoch ms); resolves with how many deliveries were queued. */
  endpointDisabled(tenant: string, endpointId: string, reason: string, at: number): Promise<number> {
    return this.#queue(tenant, endpointId, 'webhook.endpoint.disabled', {
      endpointId,
      reason,
      at: new Date(at).toISOString(),
      enable: howToEnable(endpointId),
    });
  }

  /** A delivery ended failed at `at` after an attempt came to `outcome`; resolves with how many deliveries were queued about it. */
  deliveryFailed(delivery: ClaimedDelivery, outcome: WebhookSendOutcome, at: number): Promise<number> {
    if (!reportsFailure(delivery, outcome)) return Promise.resolve(0);
    const body = {
      deliveryId: delivery.id,
      endpointId: delivery.endpointId,
      eventType: delivery.eventType,
      attempts: delivery.attemptCount + 1,
      lastError: outcome.kind === 'delivered' ? '' : outcome.reason,
      at: new Date(at).toISOString(),
    };
    return this.#queue(delivery.tenant, delivery.endpointId, 'webhook.delivery.failed', body);
  }

  async #queue(tenant: string, about: string, eventType: OperationalEventType, body: Record<string, unknown>): Promise<number> {
    const { outbox, clock } = this.#options;
    const createdAt = clock.now();
    const tenantPayload = JSON.stringify(body);
    const operatorPayload = JSON.stringify({ tenant, ...body });
    const deliveries: NewDelivery[] = [];
    for (const endpointId of await this.#tenantSubscribers(tenant, about, eventType, tenantPayload)) {
      deliveries.push({ id: newMessageId(), tenant, endpointId, eventType, payload: tenantPayload, createdAt });
    }
    for (const subscription of this.#options.subscriptions()) {
      if (!subscription.eventTypes.includes(eventType) || !subscriptionMatches(subscription, tenant)) continue;
      deliveries.push({ id: newMessageId(), tenant, endpointId: subscription.id, eventType, payload: operatorPayload, createdAt });
    }
    for (const delivery of deliveries) await outbox.enqueue(delivery);
    return deliveries.length;
  }

  /** The tenant's enabled endpoints subscribed to `eventType` whose filter, if any, matches it, except the one the event is about. */
  async #tenantSubscribers(tenant: string, about: string, eventType: OperationalEventType, payload: string): Promise<string[]> {
    const event = filterEvent(eventType, tenant, payload);
    const wants = (e: WebhookEndpoint) =>
      e.id !== about && e.status === 'enabled' && e.eventTypes.includes(eventType) && (!e.filter || matchesFilter(e.filter, event));
    const ids: string[] = [];
    let after: string | undefined;
    for (;;) {
      const page = await this.#options.endpoints.list(tenant, { limit: PAGE, ...(after !== undefined ? { after } : {}) });
      ids.push(...page.filter(wants).map((e) => e.id));
      if (page.length < PAGE) return ids;
      after = page[page.length - 1]!.id;
    }
  }
}

/** Reports only a tenant endpoint's delivery out of attempts by itself (no 410, test or endpoint end), never a report: two would report forever. */
function reportsFailure(delivery: NewDelivery, outcome: WebhookSendOutcome): boolean {
  if (!isTenantEndpointId(delivery.endpointId) || delivery.test || delivery.eventType === 'webhook.delivery.failed') return false;
  if (outcome.kind === 'delivered' || outcome.kind === 'gone') return false;
  return outcome.reason !== ENDPOINT_DELETED_ERROR;
}
