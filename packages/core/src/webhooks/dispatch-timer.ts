import type { Clock } from '../ports/clock.js';

const MAX_TIMER_MS = 2_147_483_647;

/** When the dispatcher looks for work by itself: a timer at the earliest known due time and a slow fallback poll, both calling `onDue` (unref'd). */
export class DispatchTimer {
  readonly #clock: Clock;
  readonly #onDue: () => void;
  #timer: NodeJS.Timeout | undefined;
  #timerAt = Infinity;
  #poll: NodeJS.Timeout | undefined;
  #stopped = false;

  constructor(clock: Clock, onDue: () => void) {
    this.#clock = clock;
    this.#onDue = onDue;
  }

  startPolling(intervalMs: number): void {
    if (this.#stopped || this.#poll) return;
    this.#poll = setInterval(this.#onDue, intervalMs);
    this.#poll.unref();
  }

  /** Makes sure `onDue` runs at `at` (epoch ms) at the latest. */
  scheduleAt(at: number): void {
    if (this.#stopped || (this.#timer && this.#timerAt <= at)) return;
    clearTimeout(this.#timer);
    // +1 ms: the timer runs on a monotonic clock, the due time is wall-clock milliseconds.
    const delay = Math.min(MAX_TIMER_MS, Math.max(0, at - this.#clock.now()) + 1);
    this.#timerAt = at;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#timerAt = Infinity;
      this.#onDue();
    }, delay);
    this.#timer.unref();
  }

  stop(): void {
    this.#stopped = true;
    clearInterval(this.#poll);
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
