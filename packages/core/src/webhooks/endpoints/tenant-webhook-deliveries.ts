import type { Principal } from '../../domain/principal.js';
import { validate } from '../../domain/validate.js';
import { NotFoundError, ValidationError } from '../../errors.js';
import type { Clock } from '../../ports/clock.js';
import type { Delivery, RequeueSelector, WebhookOutbox } from '../../ports/webhook-outbox.js';
import { requireScope } from '../../service/plant-service.js';
import { requeueNow } from '../requeue-now.js';
import { ListDeliveriesOptionsSchema } from './endpoint-schemas.js';
import { DEFAULT_PAGE } from './tenant-webhook-endpoints.js';
import { isTenantEndpointId, type DeliveryPage } from './webhook-endpoint.js';

export interface TenantWebhookDeliveriesOptions {
  readonly outbox: WebhookOutbox;
  readonly clock: Clock;
  /** Called after a delivery was queued again (the store wakes its dispatcher). @default nothing */
  readonly onRequeue?: () => void;
}

/** Tenants' view of the deliveries to their own endpoints: list, inspect, resend. Scope first, then input; another tenant's delivery is a `NotFoundError`. */
export class TenantWebhookDeliveries {
  readonly #options: TenantWebhookDeliveriesOptions;
  readonly #requeue: (selector: RequeueSelector) => Promise<number>;

  constructor(options: TenantWebhookDeliveriesOptions) {
    this.#options = options;
    this.#requeue = requeueNow(options);
  }

  /** One page, newest first (`endpoint`, `status`, `eventType` filters, `since`/`until` RFC 3339 on creation time; `limit` 1…1000, default 100; `after` a message id from a previous page). */
  async list(principal: Principal, query: unknown = {}): Promise<DeliveryPage> {
    requireScope(principal, 'webhooks:read');
    const { endpoint, status, eventType, since, until, limit = DEFAULT_PAGE, after } = validate(ListDeliveriesOptionsSchema, query);
    const rows = await this.#options.outbox.list({ tenant: principal.tenant, endpointId: endpoint, status, eventType, since, until, after, limit: limit + 1 });
    if (!rows) throw ValidationError.of('after', 'after must be the id of a delivery from a previous page');
    if (rows.length <= limit) return { deliveries: rows };
    rows.length = limit;
    return { deliveries: rows, nextAfter: rows[limit - 1]!.id };
  }

  async get(principal: Principal, id: string): Promise<Delivery> {
    requireScope(principal, 'webhooks:read');
    return this.#owned(principal, id);
  }

  /** Queues the delivery again whatever its state, due now, with the same `webhook-id`. */
  async resend(principal: Principal, id: string): Promise<void> {
    requireScope(principal, 'webhooks:write');
    await this.#owned(principal, id);
    await this.#requeue({ id, from: 'any' });
  }

  async #owned(principal: Principal, id: string): Promise<Delivery> {
    const delivery = typeof id === 'string' && id.startsWith('msg_') ? await this.#options.outbox.get(id) : undefined;
    if (!delivery || delivery.tenant !== principal.tenant || !isTenantEndpointId(delivery.endpointId)) {
      throw new NotFoundError(`delivery ${String(id).slice(0, 100)} not found`);
    }
    return delivery;
  }
}
