import type { Clock } from '../ports/clock.js';
import type { Logger } from '../ports/logger.js';
import type { WebhookOutbox } from '../ports/webhook-outbox.js';
import type { WebhookTransport } from '../ports/webhook-transport.js';
import type { WebhookSubscription } from './webhook-subscription.js';

/** Default delays between attempts: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
export const DEFAULT_RETRY_SCHEDULE: readonly number[] = [
  5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000,
];

export interface WebhookDispatcherOptions {
  readonly outbox: WebhookOutbox;
  readonly transport: WebhookTransport;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Current subscriptions; a delivery is signed with the secret of the subscription whose url is its endpoint. */
  readonly subscriptions: readonly WebhookSubscription[];
  /** Delays in ms between attempts; after the last, the delivery fails. @default DEFAULT_RETRY_SCHEDULE */
  readonly retrySchedule?: readonly number[];
  /** Per-attempt timeout in ms. @default 15000 */
  readonly timeoutMs?: number;
  /** `user-agent` header. @default 'plant-store' */
  readonly userAgent?: string;
}

/** TODO(webhooks): being implemented. Sends queued deliveries through the transport. */
export class WebhookDispatcher {
  constructor(readonly options: WebhookDispatcherOptions) {}
  /** Starts taking work (idempotent). */
  start(): void {}
  /** Looks for due work now (called after a commit that queued deliveries). */
  wake(): void {}
  /** Stops taking work and waits for in-flight attempts (idempotent). */
  async stop(): Promise<void> {}
}
