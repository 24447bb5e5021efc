import type { RateBudgetAnswer } from '../ports/webhook-outbox.js';

/** Attempts started in the current one-second window of one endpoint. */
interface Window {
  readonly start: number;
  /** Attempts counted here (kept by the shared budget instead when there is one). */
  count: number;
  /** No more attempts fit before the window ends. */
  full: boolean;
}

type SharedRateBudget = (endpointId: string, rateLimit: number, now: number) => Promise<RateBudgetAnswer>;

const WINDOW_MS = 1_000;

/**
 * Per-endpoint `rateLimit` per one-second window; one over it is released, not dropped, and not claimed for until the window ends. With a
 * shared budget (several processes) the budget decides and this remembers full windows, so a blocked endpoint costs no round trip.
 */
export class EndpointThrottle {
  readonly #windows = new Map<string, Window>();
  readonly #shared: SharedRateBudget | undefined;

  constructor(shared?: SharedRateBudget) {
    this.#shared = shared;
  }

  /** Counts an attempt to the endpoint starting at `now` and returns `true`, or `false` (counting nothing) when its window is full. No limit: always `true`. */
  admit(endpointId: string, rateLimit: number | undefined, now: number): boolean | Promise<boolean> {
    if (rateLimit === undefined) return true;
    if (this.#shared) return this.#admitShared(this.#shared, endpointId, rateLimit, now);
    let window = this.#windows.get(endpointId);
    if (!window || now >= window.start + WINDOW_MS) this.#windows.set(endpointId, (window = { start: now, count: 0, full: false }));
    if (window.count >= rateLimit) return false;
    window.count++;
    window.full = window.count >= rateLimit;
    return true;
  }

  async #admitShared(shared: SharedRateBudget, endpointId: string, rateLimit: number, now: number): Promise<boolean> {
    const known = this.#windows.get(endpointId);
    if (known?.full && now < known.start + WINDOW_MS) return false;
    let answer: RateBudgetAnswer;
    try {
      answer = await shared(endpointId, rateLimit, now);
    } catch {
      // Unreadable: wait one window rather than risk exceeding the limit (storage trouble shows in the claims).
      answer = { admitted: false, windowEnd: now + WINDOW_MS, exhausted: true };
    }
    this.#windows.set(endpointId, { start: answer.windowEnd - WINDOW_MS, count: 0, full: answer.exhausted || !answer.admitted });
    return answer.admitted;
  }

  /** When the endpoint's current window ends (it may start attempts again then). */
  windowEnd(endpointId: string): number | undefined {
    const window = this.#windows.get(endpointId);
    return window && window.start + WINDOW_MS;
  }

  /** The earliest end of a full window (when a blocked endpoint may be claimed for again), or `undefined` when none is full. */
  nextOpening(): number | undefined {
    let earliest: number | undefined;
    for (const { full, start } of this.#windows.values()) if (full && (earliest === undefined || start + WINDOW_MS < earliest)) earliest = start + WINDOW_MS;
    return earliest;
  }

  /** Endpoints whose window is still full at `now` (not to be claimed for); forgets windows that have ended. */
  blocked(now: number): string[] {
    const blocked: string[] = [];
    for (const [endpointId, window] of this.#windows) {
      if (now >= window.start + WINDOW_MS) this.#windows.delete(endpointId);
      else if (window.full) blocked.push(endpointId);
    }
    return blocked;
  }
}
