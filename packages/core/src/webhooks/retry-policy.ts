import type { AttemptOutcome } from '../ports/webhook-outbox.js';
import type { WebhookSendOutcome } from '../ports/webhook-transport.js';
import { DEFAULT_RETRY_SCHEDULE } from './webhook-defaults.js';
import type { WebhookDispatchSettings } from './dispatcher-options.js';

/** The dispatcher's retry settings, and the source of randomness in [0, 1) for jitter (@default Math.random). */
export type RetryPolicyOptions = Pick<WebhookDispatchSettings, 'retrySchedule' | 'jitter' | 'maxRetryAfterMs'> & { readonly random?: () => number };

/** What one attempt led to: the outbox outcome, and the reason recorded when it was not a success. */
export interface AttemptDecision {
  readonly outcome: AttemptOutcome;
  /** Why the attempt counts as failed (for the attempt log); absent on success. */
  readonly error?: string;
}

/** What follows an attempt: delivered is final, gone and failed stop; a retry waits the schedule's next delay (at least the capped time the receiver asked), and fails after the last. */
export class RetryPolicy {
  readonly #options: RetryPolicyOptions;

  constructor(options: RetryPolicyOptions) {
    this.#options = options;
  }

  /** The decision after attempt number `attempt` (1-based, counted attempts only) came to `result`, at time `now` (epoch ms). */
  decide(attempt: number, result: WebhookSendOutcome, now: number): AttemptDecision {
    if (result.kind === 'delivered') return { outcome: { status: 'delivered' } };
    const error = result.reason;
    const { retrySchedule: schedule = DEFAULT_RETRY_SCHEDULE, jitter = 0.1, maxRetryAfterMs = 3_600_000, random = Math.random } = this.#options;
    if (result.kind !== 'retry' || attempt > schedule.length) return { outcome: { status: 'failed' }, error };
    let delay = schedule[attempt - 1] ?? 0;
    if (jitter > 0 && delay > 0) delay = Math.max(0, Math.round(delay + delay * jitter * (random() * 2 - 1)));
    if (result.notBefore !== undefined) delay = Math.max(delay, Math.min(Math.max(0, result.notBefore - now), maxRetryAfterMs));
    return { outcome: { status: 'pending', nextAttemptAt: now + delay }, error };
  }
}
