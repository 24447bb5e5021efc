/** Attempts started in the current one-second window of one endpoint. */
interface Window {
  readonly start: number;
  count: number;
  /** No more attempts fit before the window ends. */
  full: boolean;
}

const WINDOW_MS = 1_000;

/**
 * Per-endpoint `rateLimit` (deliveries per second): at most that
 * many attempts start in any one-second window of this dispatcher. A
 * delivery over the limit is not dropped: the dispatcher releases it and
 * claims nothing more for that endpoint until its window ends.
 */
export class EndpointThrottle {
  readonly #windows = new Map<string, Window>();

  /** Counts an attempt to the endpoint starting at `now` and returns `true`, or `false` (counting nothing) when its window is full. No limit: always `true`. */
  admit(endpointId: string, rateLimit: number | undefined, now: number): boolean {
    if (rateLimit === undefined) return true;
    let window = this.#windows.get(endpointId);
    if (!window || now >= window.start + WINDOW_MS) this.#windows.set(endpointId, (window = { start: now, count: 0, full: false }));
    if (window.count >= rateLimit) return false;
    window.count++;
    window.full = window.count >= rateLimit;
    return true;
  }

  /** When the endpoint's current window ends (it may start attempts again then). */
  windowEnd(endpointId: string): number | undefined {
    const window = this.#windows.get(endpointId);
    return window && window.start + WINDOW_MS;
  }

  /** The earliest end of a full window (when a blocked endpoint may be claimed for again), or `undefined` when none is full. */
  nextOpening(): number | undefined {
    let earliest: number | undefined;
    for (const window of this.#windows.values()) {
      if (window.full && (earliest === undefined || window.start + WINDOW_MS < earliest)) earliest = window.start + WINDOW_MS;
    }
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
