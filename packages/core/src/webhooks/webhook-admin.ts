import { NotFoundError } from '../errors.js';
import type { Clock } from '../ports/clock.js';
import type { Delivery, ListDeliveriesQuery, PendingStats, WebhookOutbox } from '../ports/webhook-outbox.js';
import type { TenantWebhookDeliveries } from './endpoints/tenant-webhook-deliveries.js';
import type { TenantWebhookEndpoints } from './endpoints/tenant-webhook-endpoints.js';

export interface WebhookAdminOptions {
  readonly outbox: WebhookOutbox;
  /** Dates re-queued deliveries. */
  readonly clock: Clock;
  /** Tenants' endpoints (with the operator's `listAll` and `setStatus`). */
  readonly endpoints: TenantWebhookEndpoints;
  /** Tenants' deliveries. */
  readonly deliveries: TenantWebhookDeliveries;
  /** Called after deliveries are re-queued (the store wakes its dispatcher). @default nothing */
  readonly onRequeue?: () => void;
}

/**
 * `store.webhooks`: the operator's tools over the outbox (inspect deliveries
 * of every endpoint and subscription, re-queue, resend, recover), and the
 * tenants' self-service on `endpoints` and `deliveries`.
 */
export class WebhookAdmin {
  /** Tenants' webhook endpoints (each call takes a principal), plus the operator's `listAll` and `setStatus`. */
  readonly endpoints: TenantWebhookEndpoints;
  /** Tenants' deliveries to their endpoints (each call takes a principal). */
  readonly deliveries: TenantWebhookDeliveries;
  readonly #outbox: WebhookOutbox;
  readonly #clock: Clock;
  readonly #onRequeue: () => void;

  constructor(options: WebhookAdminOptions) {
    this.#outbox = options.outbox;
    this.#clock = options.clock;
    this.endpoints = options.endpoints;
    this.deliveries = options.deliveries;
    this.#onRequeue = options.onRequeue ?? (() => {});
  }

  /** Deliveries (newest first) with status and attempt log. */
  list(query?: ListDeliveriesQuery): Promise<Delivery[]> {
    return this.#outbox.list(query);
  }

  /** One delivery; `NotFoundError` when unknown. */
  async get(id: string): Promise<Delivery> {
    const delivery = await this.#outbox.get(id);
    if (!delivery) throw new NotFoundError(`delivery ${id} not found`);
    return delivery;
  }

  /** How many deliveries are pending and when the oldest was queued (one cheap storage read; metrics call it per scrape). */
  pendingStats(): Promise<PendingStats> {
    return this.#outbox.pendingStats();
  }

  /** Puts a failed delivery back in the queue, due now; `NotFoundError` when there is no failed delivery with that id. */
  async requeue(id: string): Promise<void> {
    if (!(await this.#outbox.requeue(id, this.#clock.now()))) {
      throw new NotFoundError(`no failed delivery with id ${id}`);
    }
    this.#onRequeue();
  }

  /** Puts a delivery in any state back in the queue, due now, same `webhook-id`; `NotFoundError` when unknown. */
  async resend(id: string): Promise<void> {
    if (!(await this.#outbox.resend(id, this.#clock.now()))) throw new NotFoundError(`delivery ${id} not found`);
    this.#onRequeue();
  }

  /** Queues again every failed delivery to an endpoint or subscription id created at or after `since` (epoch ms); resolves with how many. */
  async recover(endpointId: string, since: number): Promise<{ requeued: number }> {
    const requeued = await this.#outbox.requeueFailedSince(endpointId, since, this.#clock.now());
    if (requeued > 0) this.#onRequeue();
    return { requeued };
  }
}
