import type { AttemptOutcome } from '../ports/webhook-outbox.js';
import type { WebhookResponse } from '../ports/webhook-transport.js';
import { parseRetryAfter } from './retry-after.js';

export interface RetryPolicyOptions {
  /** Delays in ms before attempt 2, 3, …; after the last one, a failing delivery is failed. */
  readonly schedule: readonly number[];
  /** Spread each delay by up to ± this fraction, so receivers that fail together are not retried in lockstep. 0 disables. @default 0.1 */
  readonly jitter?: number;
  /** Longest `Retry-After` (429/503) that is honoured; longer ones are cut to this. @default 3600000 (1 h) */
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

/**
 * Decides what happens after an attempt: 2xx is delivered; 410 Gone stops
 * retrying; anything else (3xx included: redirects are not followed, and
 * errors such as timeouts) is retried on the schedule, waiting at least as
 * long as a capped `Retry-After` on 429/503 asks.
 */
export class RetryPolicy {
  readonly #schedule: readonly number[];
  readonly #jitter: number;
  readonly #maxRetryAfterMs: number;
  readonly #random: () => number;

  constructor(options: RetryPolicyOptions) {
    this.#schedule = options.schedule;
    this.#jitter = options.jitter ?? 0.1;
    this.#maxRetryAfterMs = options.maxRetryAfterMs ?? 3_600_000;
    this.#random = options.random ?? Math.random;
  }

  /** The decision after attempt number `attempt` (1-based) got `response`, at time `now` (epoch ms). */
  decide(attempt: number, response: WebhookResponse, now: number): AttemptDecision {
    const status = response.statusCode;
    if (status !== undefined && status >= 200 && status < 300) return { outcome: { status: 'delivered' } };
    const error = response.error ?? failureReason(status);
    if (status === 410) return { outcome: { status: 'failed' }, error };
    if (attempt > this.#schedule.length) return { outcome: { status: 'failed' }, error };
    let delay = this.#jittered(this.#schedule[attempt - 1] ?? 0);
    if (status === 429 || status === 503) {
      const asked = parseRetryAfter(response.retryAfter, now);
      if (asked !== undefined) delay = Math.max(delay, Math.min(asked, this.#maxRetryAfterMs));
    }
    return { outcome: { status: 'pending', nextAttemptAt: now + delay }, error };
  }

  #jittered(delay: number): number {
    if (this.#jitter <= 0 || delay <= 0) return delay;
    const spread = delay * this.#jitter * (this.#random() * 2 - 1);
    return Math.max(0, Math.round(delay + spread));
  }
}

function failureReason(status: number | undefined): string {
  if (status === undefined) return 'no response';
  if (status === 410) return 'receiver answered 410 Gone: no more attempts';
  if (status >= 300 && status < 400) return `receiver answered ${status} (redirects are not followed)`;
  return `receiver answered ${status}`;
}
