import { join } from 'node:path';
import type { BenchContext } from '../lib/bench-context.js';
import type { ScenarioName } from '../lib/bench-options.js';
import { runPairedRounds, type PairedResult, type PairedScenario } from '../lib/paired-rounds.js';
import type { ServerConfig, StorageKind } from '../lib/server-launcher.js';
import { startServer, type RunningServer } from '../lib/server-process.js';
import { startWebhookReceiver, type ReceiverMode } from '../lib/webhook-receiver.js';
import {
  BENCH_TOKENS,
  createScenario,
  deleteScenario,
  getScenario,
  listScenario,
  seedReadServer,
} from './http-scenarios.js';

interface Pair {
  readonly service: RunningServer;
  readonly baseline: RunningServer;
}

async function startPair(context: BenchContext, storage: StorageKind, name: string, extra: Partial<ServerConfig> = {}): Promise<Pair> {
  const config = (who: string): ServerConfig => ({
    storage,
    dbFile: join(context.workDir, `${name}-${storage}-${who}.db`),
    tokens: BENCH_TOKENS,
    ...extra,
  });
  const profile = (who: string) => context.profile(`${name}-${storage}-${who}`);
  const service = await startServer(context.launcher.spec('service', { ...config('service'), ...profile('service') }));
  try {
    const baseline = await startServer(context.launcher.spec('baseline', { ...config('baseline'), ...profile('baseline') }));
    return { service, baseline };
  } catch (error) {
    await service.stop();
    throw error;
  }
}

async function stopPair(pair: Pair): Promise<void> {
  await Promise.all([pair.service.stop(), pair.baseline.stop()]);
}

/**
 * Create with one matching subscription configured in both servers, so
 * both write the plant and one outbox row in one transaction. `hold`: the
 * receiver never answers, which isolates the HTTP path (the dispatcher
 * gets at most a few attempts in flight and then only its per-commit
 * wake-up, which is part of the create path and stays measured); delivery
 * is measured by the webhooks scenario. `ok`: the receiver answers 200 and
 * the service really delivers every webhook during the rounds, while the
 * baseline (which sends nothing) does not: the full cost, for information.
 */
async function runCreate(context: BenchContext, storage: StorageKind, mode: ReceiverMode): Promise<PairedResult> {
  const receiver = await startWebhookReceiver(mode);
  const name = mode === 'hold' ? 'create' : 'create-webhooks';
  const scenario: PairedScenario = createScenario(
    name,
    mode === 'hold'
      ? 'POST /plants with unique ids; one subscription configured in both (plant + outbox row per create); receiver holds requests, so webhook sending is excluded'
      : 'POST /plants with unique ids; the service also delivers every webhook to a loopback receiver answering 200 (the baseline only queues)',
  );
  const pair = await startPair(context, storage, name, {
    webhooks: [{ url: receiver.url, secret: receiver.secret }],
    webhookTimeout: mode === 'hold' ? '1h' : '15s',
  });
  try {
    return await runPairedRounds(scenario, storage, pair, context.options, context.log);
  } finally {
    // Receiver first: its held requests then fail at once instead of making the service's shutdown wait for them.
    await receiver.close();
    await stopPair(pair);
  }
}

/** The read scenarios and delete share one pair per storage, seeded once (delete works in its own tenant). */
async function runReads(context: BenchContext, storage: StorageKind, wanted: readonly ScenarioName[]): Promise<PairedResult[]> {
  const { options } = context;
  const pair = await startPair(context, storage, 'reads');
  const results: PairedResult[] = [];
  try {
    const deletes = wanted.includes('delete') ? options.deleteAmount : 0;
    context.log(`  seeding ${options.seedPlants} plants (+${deletes * (options.rounds + 1)} to delete) into each ${storage} server`);
    for (const server of [pair.service, pair.baseline]) {
      await seedReadServer(server, options.seedPlants, deletes, options.rounds + 1);
    }
    const scenarios: Record<string, PairedScenario> = {
      'list-20': listScenario(20, options.seedPlants),
      'list-100': listScenario(100, options.seedPlants),
      get: getScenario(options.seedPlants),
      delete: deleteScenario(options.deleteAmount),
    };
    for (const name of wanted) {
      context.log(`  ${name} (${storage})`);
      results.push(await runPairedRounds(scenarios[name]!, storage, pair, options, context.log));
    }
  } finally {
    await stopPair(pair);
  }
  return results;
}

/**
 * Runs the selected paired HTTP scenarios for every selected storage. A
 * group that fails (a server that does not start, seeding that fails) is
 * reported through `onError` and the others still run.
 */
export async function runHttpSuite(context: BenchContext, onError: (name: string, error: unknown) => void): Promise<PairedResult[]> {
  const selected = context.options.scenarios;
  const results: PairedResult[] = [];
  const group = async (name: string, run: () => Promise<PairedResult[]>) => {
    context.log(name);
    try {
      results.push(...(await run()));
    } catch (error) {
      onError(name, error);
    }
  };
  for (const storage of context.options.storages) {
    if (selected.has('create')) await group(`create (${storage})`, async () => [await runCreate(context, storage, 'hold')]);
    if (selected.has('create-webhooks')) {
      await group(`create-webhooks (${storage})`, async () => [await runCreate(context, storage, 'ok')]);
    }
    const reads = (['list-20', 'list-100', 'get', 'delete'] as const).filter((name) => selected.has(name));
    if (reads.length) await group(`${reads.join(', ')} (${storage})`, () => runReads(context, storage, reads));
  }
  return results;
}
