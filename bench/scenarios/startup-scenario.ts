import { rmSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import type { BenchContext } from '../lib/bench-context.js';
import { startServer } from '../lib/server-process.js';
import { median } from '../lib/stats.js';
import { BENCH_TOKENS } from './http-scenarios.js';

export type StartupResult = Awaited<ReturnType<typeof runStartupScenario>>[number];

/** Spawn of `node` → ready line (Node's own boot included; SQLite on a fresh file), and RSS one second after, nothing sent. */
export async function runStartupScenario(context: BenchContext) {
  const results = [];
  for (const storage of context.options.storages) {
    for (const contestant of ['service', 'baseline'] as const) {
      const readyMs: number[] = [];
      const idleRssBytes: number[] = [];
      for (let run = 0; run < context.options.startupRuns; run++) {
        const dbFile = join(context.workDir, `startup-${storage}-${contestant}-${run}.db`);
        const server = await startServer(context.launcher.spec(contestant, { storage, dbFile, tokens: BENCH_TOKENS }));
        try {
          readyMs.push(server.readyMs);
          await sleep(1000);
          idleRssBytes.push(server.stats().rssBytes);
        } finally {
          await server.stop();
          rmSync(dbFile, { force: true });
        }
      }
      const result = { contestant, storage, readyMs, idleRssBytes, medianReadyMs: median(readyMs), medianIdleRssBytes: median(idleRssBytes) };
      context.log(
        `  ${contestant} (${storage}): ready in ${result.medianReadyMs.toFixed(0)} ms, idle RSS ${(result.medianIdleRssBytes / 2 ** 20).toFixed(1)} MiB`,
      );
      results.push(result);
    }
  }
  return results;
}
