import type { BenchContext } from '../lib/bench-context.js';
import type { PairedResult } from '../lib/paired-rounds.js';
import type { RunningServer } from '../lib/server-process.js';
import { runOnOffScenario } from './on-off-scenario.js';

/** How often the metrics-on service is scraped during its rounds (Prometheus defaults to every 15 s to 1 min). */
export const SCRAPE_INTERVAL_MS = 1_000;

/** Scrapes `/metrics` of the metrics-on server every second until stopped; a failed scrape fails the scenario. */
function scrapeEverySecond(server: RunningServer): { stop(): Promise<void> } {
  let failure: Error | undefined;
  let inFlight: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    inFlight = fetch(`${server.url}/metrics`)
      .then(async (response) => {
        await response.arrayBuffer();
        if (response.status !== 200) throw new Error(`GET /metrics answered ${response.status}`);
      })
      .catch((error: unknown) => {
        failure ??= error instanceof Error ? error : new Error(String(error));
      });
  }, SCRAPE_INTERVAL_MS);
  return {
    async stop() {
      clearInterval(timer);
      await inFlight;
      if (failure) throw failure;
    },
  };
}

/**
 * The cost of metrics: create and list 20, per storage, the service with
 * metrics on (scraped every second while measured) against the same service
 * with them off. A group that fails is reported through `onError` and the
 * others still run.
 */
export async function runMetricsScenario(context: BenchContext, onError: (name: string, error: unknown) => void): Promise<PairedResult[]> {
  return runOnOffScenario(
    context,
    {
      name: 'metrics',
      comparison: 'the service with metrics on (scraped every second) against itself with PLANT_STORE_METRICS=off',
      settings: (metrics) => ({ metrics }),
      async measure(rounds, pair) {
        const scraper = scrapeEverySecond(pair.service);
        try {
          return await rounds();
        } finally {
          await scraper.stop();
        }
      },
    },
    onError,
  );
}
