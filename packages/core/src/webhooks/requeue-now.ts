import type { Clock } from '../ports/clock.js';
import type { RequeueSelector, WebhookOutbox } from '../ports/webhook-outbox.js';

/** What a re-queue needs: the outbox, the time it is due at, and whom to tell. */
export interface RequeueNowOptions {
  readonly outbox: WebhookOutbox;
  readonly clock: Clock;
  /** Called after deliveries were queued again (the store wakes its dispatcher). @default nothing */
  readonly onRequeue?: () => void;
}

/**
 * The one way core queues deliveries again (the operator's retry, resend and
 * recover, and the tenants' resend and recover): due now, with `onRequeue`
 * called when any went back, so a dispatcher asleep until its next poll
 * sends them at once. Resolves with how many went back.
 */
export function requeueNow(options: RequeueNowOptions): (selector: RequeueSelector) => Promise<number> {
  return async (selector) => {
    const requeued = await options.outbox.requeue(selector, options.clock.now());
    if (requeued > 0) options.onRequeue?.();
    return requeued;
  };
}
