/** A call waiting for the database's answer. */
export interface Waiting {
  /** The call has its answer (or failed otherwise): stop watching it. Idempotent. */
  done(): void;
}

interface Entry {
  readonly by: number;
  fail: ((error: Error) => void) | undefined;
}

/**
 * Fails calls that get no answer within `deadlineMs` (a lost network). One sweep timer for every call, not one per
 * call as pg's `query_timeout` arms: that timer kept every row a query read alive into the old generation.
 */
export class AnswerDeadlines {
  readonly #deadlineMs: number;
  readonly #sweepMs: number;
  readonly #entries = new Set<Entry>();
  #sweep: NodeJS.Timeout | undefined;

  constructor(deadlineMs: number) {
    this.#deadlineMs = deadlineMs;
    this.#sweepMs = Math.max(10, Math.min(1000, Math.floor(deadlineMs / 4)));
  }

  watch(fail: (error: Error) => void): Waiting {
    const entry: Entry = { by: Date.now() + this.#deadlineMs, fail };
    this.#entries.add(entry);
    this.#sweep ??= setInterval(() => this.#expire(), this.#sweepMs).unref();
    return {
      done: () => {
        entry.fail = undefined;
        this.#entries.delete(entry);
      },
    };
  }

  #expire(): void {
    // Stopped on a sweep with nothing waiting, so back-to-back calls (a streamed list) share one timer.
    if (this.#entries.size === 0) {
      clearInterval(this.#sweep);
      this.#sweep = undefined;
      return;
    }
    const now = Date.now();
    for (const entry of this.#entries) {
      if (entry.by > now) continue;
      const fail = entry.fail;
      entry.fail = undefined;
      this.#entries.delete(entry);
      fail?.(new Error(`no answer from the database within ${this.#deadlineMs} ms`));
    }
  }
}
