import { join } from 'node:path';
import type { BenchContext } from '../lib/bench-context.js';
import { runPairedRounds, type PairedResult, type PairedScenario } from '../lib/paired-rounds.js';
import type { AnyStorageKind } from '../../test/support/storage-kind.js';
import type { ServerConfig } from '../lib/server-launcher.js';
import { startServer, type RunningServer } from '../lib/server-process.js';
import { startReceiver } from '../../test/support/webhook-receiver.js';
import { BENCH_TOKENS, createScenario, listScenario, seedReadServer } from './http-scenarios.js';

/** How often the metrics-on service is scraped during its rounds (Prometheus defaults to every 15 s to 1 min). */
export const SCRAPE_INTERVAL_MS = 1_000;

interface Pair {
  readonly service: RunningServer;
  readonly baseline: RunningServer;
}

/**
 * Two services, identical but for `--metrics`: `service` has it on (and is
 * scraped every second while measured), `baseline` has it off. Both go
 * through `runPairedRounds`, so "service / baseline" reads "on / off".
 */
async function startOnOff(context: BenchContext, storage: AnyStorageKind, name: string, extra: Partial<ServerConfig> = {}): Promise<Pair> {
  const config = (metrics: 'on' | 'off'): ServerConfig => ({
    storage,
    dbFile: join(context.workDir, `${name}-${storage}-metrics-${metrics}.db`),
    tokens: BENCH_TOKENS,
    metrics,
    ...extra,
    ...context.profile(`${name}-${storage}-metrics-${metrics}`),
  });
  const service = await startServer(context.launcher.spec('service', config('on')));
  try {
    const baseline = await startServer(context.launcher.spec('service', config('off')));
    return { service, baseline };
  } catch (error) {
    await service.stop();
    throw error;
  }
}

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

async function measure(context: BenchContext, storage: AnyStorageKind, scenario: PairedScenario, pair: Pair): Promise<PairedResult> {
  const scraper = scrapeEverySecond(pair.service);
  try {
    return await runPairedRounds(scenario, storage, pair, context.options, context.log);
  } finally {
    await scraper.stop();
  }
}

async function runCreate(context: BenchContext, storage: AnyStorageKind): Promise<PairedResult> {
  // As in `create`: one subscription whose receiver holds requests, so both write the outbox row and neither delivers.
  const receiver = await startReceiver();
  receiver.reply(() => 'hang');
  const pair = await startOnOff(context, storage, 'metrics-create', {
    webhooks: [{ url: receiver.url(), secret: receiver.secret }],
    webhookTimeout: '1h',
  });
  const scenario = createScenario(
    'metrics-create',
    'POST /plants as in `create`; the service with metrics on (scraped every second) against itself with PLANT_STORE_METRICS=off',
  );
  try {
    return await measure(context, storage, scenario, pair);
  } finally {
    await receiver.close();
    await Promise.all([pair.service.stop(), pair.baseline.stop()]);
  }
}

async function runList(context: BenchContext, storage: AnyStorageKind): Promise<PairedResult> {
  const pair = await startOnOff(context, storage, 'metrics-list');
  const seeded = context.options.seedPlants;
  const scenario: PairedScenario = {
    ...listScenario(20, seeded),
    name: 'metrics-list-20',
    description: 'GET /plants?limit=20 as in `list-20`; the service with metrics on (scraped every second) against itself with PLANT_STORE_METRICS=off',
  };
  try {
    context.log(`  seeding ${seeded} plants into each ${storage} server`);
    for (const server of [pair.service, pair.baseline]) await seedReadServer(server, seeded, 0, 0);
    return await measure(context, storage, scenario, pair);
  } finally {
    await Promise.all([pair.service.stop(), pair.baseline.stop()]);
  }
}

/**
 * The cost of metrics: create and list 20, the service with
 * metrics on against the same service with them off, per storage. A group
 * that fails is reported through `onError` and the others still run.
 */
export async function runMetricsScenario(context: BenchContext, onError: (name: string, error: unknown) => void): Promise<PairedResult[]> {
  const results: PairedResult[] = [];
  for (const storage of context.options.storages) {
    for (const [name, run] of [
      ['metrics-create', runCreate],
      ['metrics-list-20', runList],
    ] as const) {
      context.log(`${name} (${storage})`);
      try {
        results.push(await run(context, storage));
      } catch (error) {
        onError(`${name} (${storage})`, error);
      }
    }
  }
  return results;
}
