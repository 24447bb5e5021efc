import { NotFoundError } from '../errors.js';
import type { Clock } from '../ports/clock.js';
import type { Delivery, ListDeliveriesQuery, WebhookOutbox } from '../ports/webhook-outbox.js';

export interface WebhookAdminOptions {
  readonly outbox: WebhookOutbox;
  /** Dates re-queued deliveries. */
  readonly clock: Clock;
  /** Called after a delivery is re-queued (the store wakes its dispatcher). @default nothing */
  readonly onRequeue?: () => void;
}

/** Operator tools over the outbox: inspect deliveries and re-queue failed ones. */
export class WebhookAdmin {
  readonly #outbox: WebhookOutbox;
  readonly #clock: Clock;
  readonly #onRequeue: () => void;

  constructor(options: WebhookAdminOptions) {
    this.#outbox = options.outbox;
    this.#clock = options.clock;
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

  /** Puts a failed delivery back in the queue, due now; `NotFoundError` when there is no failed delivery with that id. */
  async requeue(id: string): Promise<void> {
    if (!(await this.#outbox.requeue(id, this.#clock.now()))) {
      throw new NotFoundError(`no failed delivery with id ${id}`);
    }
    this.#onRequeue();
  }
}
