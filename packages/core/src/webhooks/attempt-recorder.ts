import type { Logger } from '../ports/logger.js';
import type { AttemptOutcome, ClaimedDelivery, DeliveryAttempt, WebhookOutbox } from '../ports/webhook-outbox.js';
import type { AttemptResult } from './delivery-attempt.js';
import { ENDPOINT_DISABLED_ERROR } from './endpoints/webhook-endpoint.js';
import type { RetryPolicy } from './retry-policy.js';

export interface AttemptRecorderOptions {
  readonly outbox: WebhookOutbox;
  readonly owner: string;
  readonly policy: RetryPolicy;
  readonly logger: Logger;
}

/** Why an interrupted attempt is in the log. */
const INTERRUPTED_ERROR = 'interrupted: the dispatcher stopped';

/** Turns an attempt's result into the outbox's next state (through the retry policy), writes both under the lease, and logs it. */
export class AttemptRecorder {
  readonly #options: AttemptRecorderOptions;

  constructor(options: AttemptRecorderOptions) {
    this.#options = options;
  }

  /** Records the attempt; resolves with the outcome applied, or `undefined` when the lease was lost (another dispatcher's attempt counts). Rejects when storage fails. */
  async record(delivery: ClaimedDelivery, result: AttemptResult): Promise<AttemptOutcome | undefined> {
    // Neither an interrupted attempt nor a disabled endpoint is the receiver's doing: no retry is used up.
    const { outcome, error } = result.parked
      ? { outcome: { status: 'parked' } as const, error: ENDPOINT_DISABLED_ERROR }
      : result.interrupted
        ? { outcome: { status: 'interrupted' } as const, error: INTERRUPTED_ERROR }
        : this.#options.policy.decide(delivery.attemptCount + 1, result.outcome, result.finishedAt);
    const { statusCode, response } = result.outcome;
    const attempt: DeliveryAttempt = {
      at: result.startedAt,
      durationMs: Math.max(0, result.finishedAt - result.startedAt),
      ...(statusCode !== undefined ? { statusCode } : {}),
      ...(error !== undefined ? { error } : {}),
      ...(response !== undefined && response !== '' ? { response } : {}),
    };
    const { outbox, owner, logger } = this.#options;
    if (!(await outbox.recordAttempt(delivery.id, owner, attempt, outcome))) {
      logger.warn('webhook attempt not recorded: lease lost', { deliveryId: delivery.id });
      return undefined;
    }
    const egressFailed = result.outcome.egressFailed === true && outcome.status !== 'interrupted';
    this.#log(delivery, outcome, error, egressFailed);
    return outcome;
  }

  #log(delivery: ClaimedDelivery, outcome: AttemptOutcome, error: string | undefined, egressFailed: boolean): void {
    const { logger } = this.#options;
    const attempt = delivery.attemptCount + 1;
    if (outcome.status === 'delivered') {
      logger.debug('webhook delivered', { deliveryId: delivery.id, attempt });
      return;
    }
    // The endpoint id, never its URL: URLs may carry credentials in their path or query.
    const fields = { deliveryId: delivery.id, endpointId: delivery.endpointId, attempt, error, ...(egressFailed ? { cause: 'egress' } : {}) };
    if (outcome.status === 'interrupted') logger.info('webhook attempt interrupted by shutdown; due again at once', fields);
    else if (outcome.status === 'parked') logger.info('webhook message parked: its endpoint is disabled (enabling it replays it)', fields);
    // The operator's to fix (the receiver never saw it): a warning even while retries remain.
    else if (egressFailed && outcome.status === 'pending') logger.warn('webhook attempt failed in egress (not the receiver), will retry', fields);
    else if (outcome.status === 'pending') logger.info('webhook attempt failed, will retry', fields);
    else logger.warn('webhook delivery failed, no more attempts', fields);
  }
}
