/** Runs `operation` on `workers` concurrent loops for `seconds` in this process; operations per second. */
export async function inProcessRate(workers: number, seconds: number, operation: () => Promise<void>): Promise<number> {
  const started = performance.now();
  const deadline = started + seconds * 1000;
  let done = 0;
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (performance.now() < deadline) {
        await operation();
        done++;
      }
    }),
  );
  return done / ((performance.now() - started) / 1000);
}
