import type { Clock } from '../ports/clock.js';
import type { Logger } from '../ports/logger.js';

/** Logs a run of failed storage passes as one outage: the first failure, then one summary when a pass succeeds (a line per retry each second would bury the log). */
export class StorageOutage {
  readonly #logger: Logger;
  readonly #clock: Clock;
  #current: { readonly since: number; failedPasses: number; lastError: string } | undefined;

  constructor(logger: Logger, clock: Clock) {
    this.#logger = logger;
    this.#clock = clock;
  }

  /** A pass failed with `error`: logged when it starts an outage, counted otherwise. */
  failed(error: string): void {
    if (this.#current) {
      this.#current.failedPasses++;
      this.#current.lastError = error;
      return;
    }
    this.#current = { since: this.#clock.now(), failedPasses: 1, lastError: error };
    this.#logger.error('webhook dispatcher: storage failed, will retry until it answers (logged again when it does)', { error });
  }

  /** A pass succeeded: ends the outage, if any, with its summary. */
  succeeded(): void {
    const outage = this.#current;
    if (!outage) return;
    this.#current = undefined;
    this.#logger.warn('webhook dispatcher: storage answers again after failing', {
      downMs: Math.max(0, this.#clock.now() - outage.since),
      failedPasses: outage.failedPasses,
      lastError: outage.lastError,
    });
  }
}
