import { NotFoundError } from '../errors.js';
import type { Clock } from '../ports/clock.js';
import type { Delivery, ListDeliveriesQuery, PendingStats, WebhookOutbox } from '../ports/webhook-outbox.js';

/** Operator tools over the outbox: inspect deliveries and re-queue failed ones. */
export class WebhookAdmin {
  readonly #outbox: WebhookOutbox;
  readonly #clock: Clock;
  readonly #onRequeue: () => void;

  constructor(outbox: WebhookOutbox, clock: Clock, onRequeue: () => void = () => {}) {
    this.#outbox = outbox;
    this.#clock = clock;
    this.#onRequeue = onRequeue;
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
}
