import { setTimeout as sleep } from 'node:timers/promises';

const FIRST_PAUSE_MS = 2;
const LONGEST_PAUSE_MS = 100;

/**
 * Runs `attempt` (safe to repeat) again while it fails with `SQLITE_BUSY`, for up to `timeoutMs`: SQLite's busy
 * handler does not cover everything start-up does (changing the journal mode, reading a log being recovered).
 */
export async function retryWhileBusy<T>(timeoutMs: number, attempt: () => T | Promise<T>): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (let pause = FIRST_PAUSE_MS; ; pause = Math.min(pause * 2, LONGEST_PAUSE_MS)) {
    try {
      return await attempt();
    } catch (error) {
      const left = deadline - performance.now();
      // `SQLITE_BUSY` and its extended codes (`SQLITE_BUSY_RECOVERY`, …).
      const busy = String((error as { code?: unknown } | null)?.code).startsWith('SQLITE_BUSY');
      if (!busy || left <= 0) throw error;
      // Jitter: processes that collided once should not wake in step and collide again.
      await sleep(Math.min(left, pause * (0.5 + Math.random())));
    }
  }
}
