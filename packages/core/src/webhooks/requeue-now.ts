import type { Clock } from '../ports/clock.js';
import type { RequeueSelector, WebhookOutbox } from '../ports/webhook-outbox.js';

export interface RequeueNowOptions {
  readonly outbox: WebhookOutbox;
  readonly clock: Clock;
  /** Called after deliveries were queued again (the store wakes its dispatcher). @default nothing */
  readonly onRequeue?: () => void;
}

/** The one way core queues deliveries again: due now, calling `onRequeue` when any went back (so a sleeping dispatcher sends them at once); resolves with how many. */
export function requeueNow(options: RequeueNowOptions): (selector: RequeueSelector) => Promise<number> {
  return async (selector) => {
    const requeued = await options.outbox.requeue(selector, options.clock.now());
    if (requeued > 0) options.onRequeue?.();
    return requeued;
  };
}
