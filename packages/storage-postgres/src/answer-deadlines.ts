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
 * Fails calls that get no answer within `deadlineMs`: the client-side
 * timeout for a database that stopped answering (a lost network), where the
 * server's own statement timeout cannot help.
 *
 * One sweep timer for every call, not one timer per call: pg's own
 * `query_timeout` arms a timer per query around its callback, and with it
 * (as with pg's promise-returning `query`) every row a query read was
 * promoted to the old generation: about 0.9 MiB per young-generation GC
 * while streaming a large list, against under 0.1 MiB here, which made a
 * 1,000,000-plant stream grow the process by about 75 MiB instead of 25.
 * A call that ends lets go of its entry at once (`fail` cleared), so even an
 * entry old enough to have been promoted keeps nothing of the call alive.
 *
 * A call fails between `deadlineMs` and `deadlineMs + sweepMs` after it
 * started. The sweep runs only while calls are waiting and never keeps the
 * process alive.
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

  /** Watches a call that `fail` ends with an error once its deadline has passed. */
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
    // Stopped on a sweep with nothing waiting rather than when the last call
    // ends: back-to-back calls (a streamed list) then share one timer.
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
