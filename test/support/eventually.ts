import { vi } from 'vitest';

/**
 * Waits (with vitest's `vi.waitFor`) until `check` holds, checking every
 * 5 ms; after `timeoutMs` fails with "timed out waiting for <what>". For a
 * plain condition: an assertion reads better as `vi.waitFor(() => expect(…))`.
 */
export async function eventually(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  await vi.waitFor(
    async () => {
      if (!(await check())) throw new Error(`timed out waiting for ${what}`);
    },
    { timeout: timeoutMs, interval: 5 },
  );
}
