import type { AttemptOutcome } from '../ports/webhook-outbox.js';
import type { WebhookSendOutcome } from '../ports/webhook-transport.js';

export interface RetryPolicyOptions {
  /** Delays in ms before attempt 2, 3, …; after the last one, a failing delivery is failed. */
  readonly schedule: readonly number[];
  /** Spread each delay by up to ± this fraction, so receivers that fail together are not retried in lockstep. 0 disables. @default 0.1 */
  readonly jitter?: number;
  /** Longest wait a receiver can ask for (`notBefore` of a retry, e.g. HTTP `Retry-After`); longer ones are cut to this. @default 3600000 (1 h) */
  readonly maxRetryAfterMs?: number;
  /** Source of randomness in [0, 1) for jitter. @default Math.random */
  readonly random?: () => number;
}

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
    const { schedule, jitter = 0.1, maxRetryAfterMs = 3_600_000, random = Math.random } = this.#options;
    if (result.kind !== 'retry' || attempt > schedule.length) return { outcome: { status: 'failed' }, error };
    let delay = schedule[attempt - 1] ?? 0;
    if (jitter > 0 && delay > 0) delay = Math.max(0, Math.round(delay + delay * jitter * (random() * 2 - 1)));
    if (result.notBefore !== undefined) delay = Math.max(delay, Math.min(Math.max(0, result.notBefore - now), maxRetryAfterMs));
    return { outcome: { status: 'pending', nextAttemptAt: now + delay }, error };
  }
}
