import { join } from 'node:path';
import type { BenchContext } from '../lib/bench-context.js';
import { runPairedRounds, type PairedResult, type PairedScenario } from '../lib/paired-rounds.js';
import type { Contestant, ServerConfig } from '../lib/server-launcher.js';
import { startServer, type RunningServer } from '../lib/server-process.js';
import { startReceiver } from '../../test/support/webhook-receiver.js';
import {
  BENCH_TOKENS,
  createScenario,
  deleteMissingScenario,
  deleteScenario,
  getScenario,
  listScenario,
  seedReadServer,
} from './http-scenarios.js';

/**
 * `ok`: the receiver answers at once (keep-alive). `hold`: it reads the request and never
 * answers, so a dispatcher's attempts stay in flight until its timeout.
 */
export type ReceiverMode = 'ok' | 'hold';

interface Pair {
  readonly service: RunningServer;
  readonly baseline: RunningServer;
  /** The lean baseline, on storages that have one (SQLite, memory). */
  readonly lean?: RunningServer;
}

/**
 * Where a pair keeps its data: SQLite files in the work folder, or a
 * schema of its own per server on the bench PostgreSQL database.
 */
export interface PairHome {
  /** Report label, e.g. `sqlite` or `postgres, logging off`. */
  readonly label: string;
  /** The storage flags of one server of the pair `name` (creates its file or schema). */
  config(name: string, who: Contestant): Promise<ServerConfig>;
  /** Removes what `config` created for the pair `name` (its servers have stopped). */
  release(name: string): Promise<void>;
  /** Brings what seeding wrote to a steady state before any round, so no background work lands in one contestant's rounds. */
  settle?(name: string): Promise<void>;
  /** Also run the lean baseline (a third server). */
  readonly lean?: boolean;
}

/** SQLite files or memory, logging on or off for all three servers; files are removed with the work folder. */
export function localHome(context: BenchContext, storage: 'sqlite' | 'memory', logging: boolean): PairHome {
  const variant = logging ? 'log' : 'nolog';
  return {
    label: `${storage}, logging ${logging ? 'on' : 'off'}`,
    lean: true,
    config: async (name, who) => ({ storage, dbFile: join(context.workDir, `${name}-${storage}-${variant}-${who}.db`), logging, tokens: BENCH_TOKENS }),
    release: async () => {},
  };
}

async function startPair(context: BenchContext, home: PairHome, name: string, extra: Partial<ServerConfig> = {}): Promise<Pair> {
  const slug = `${name}-${home.label.replace(/\W+/g, '-')}`;
  const profile = (who: string) => context.profile(`${slug}-${who}`);
  const service = await startServer(context.launcher.spec('service', { ...(await home.config(name, 'service')), ...extra, ...profile('service') }));
  let baseline: RunningServer | undefined;
  try {
    baseline = await startServer(context.launcher.spec('baseline', { ...(await home.config(name, 'baseline')), ...extra, ...profile('baseline') }));
    if (!home.lean) return { service, baseline };
    const lean = await startServer(context.launcher.spec('lean', { ...(await home.config(name, 'lean')), ...extra, ...profile('lean') }));
    return { service, baseline, lean };
  } catch (error) {
    await Promise.all([service.stop(), baseline?.stop()]);
    throw error;
  }
}

async function stopPair(home: PairHome, name: string, pair: Pair | undefined): Promise<void> {
  if (pair) await Promise.all([pair.service.stop(), pair.baseline.stop(), pair.lean?.stop()]);
  await home.release(name);
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
export async function runCreate(context: BenchContext, home: PairHome, mode: ReceiverMode): Promise<PairedResult> {
  const receiver = await startReceiver();
  if (mode === 'hold') receiver.reply(() => 'hang');
  const name = mode === 'hold' ? 'create' : 'create-webhooks';
  const scenario: PairedScenario = createScenario(
    name,
    mode === 'hold'
      ? 'POST /plants with unique ids; one subscription configured in both (plant + outbox row per create); receiver holds requests, so webhook sending is excluded'
      : 'POST /plants with unique ids; the service also delivers every webhook to a loopback receiver answering 200 (the baseline only queues)',
  );
  let pair: Pair | undefined;
  try {
    pair = await startPair(context, home, name, {
      webhooks: [{ url: receiver.url(), secret: receiver.secret }],
      webhookTimeout: mode === 'hold' ? '1h' : '15s',
    });
    return await runPairedRounds(scenario, home.label, pair, context.options, context.log);
  } finally {
    // Receiver first: its held requests then fail at once instead of making the service's shutdown wait for them.
    await receiver.close();
    await stopPair(home, name, pair);
  }
}

export type PairedReadName = 'list-20' | 'list-100' | 'get' | 'delete' | 'delete-404';

/** The read scenarios and delete share one pair per storage, seeded once (delete works in its own tenant). */
export async function runReads(context: BenchContext, home: PairHome, wanted: readonly PairedReadName[]): Promise<PairedResult[]> {
  const { options } = context;
  const storage = home.label;
  const results: PairedResult[] = [];
  let pair: Pair | undefined;
  try {
    pair = await startPair(context, home, 'reads');
    const deletes = wanted.includes('delete') ? options.deleteAmount : 0;
    context.log(`  seeding ${options.seedPlants} plants (+${deletes * (options.rounds + 1)} to delete) into each ${storage} server`);
    for (const server of [pair.service, pair.baseline, ...(pair.lean ? [pair.lean] : [])]) {
      await seedReadServer(server, options.seedPlants, deletes, options.rounds + 1);
    }
    await home.settle?.('reads');
    const scenarios: Record<string, PairedScenario> = {
      'list-20': listScenario(20, options.seedPlants),
      'list-100': listScenario(100, options.seedPlants),
      get: getScenario(options.seedPlants),
      delete: deleteScenario(options.deleteAmount),
      'delete-404': deleteMissingScenario(),
    };
    for (const name of wanted) {
      context.log(`  ${name} (${storage})`);
      results.push(await runPairedRounds(scenarios[name]!, storage, pair, options, context.log));
    }
  } finally {
    await stopPair(home, 'reads', pair);
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
  for (const [storage, logging] of context.options.storages.flatMap((storage) => context.options.logging.map((on) => [storage, on] as const))) {
    const home = localHome(context, storage, logging);
    if (selected.has('create')) await group(`create (${home.label})`, async () => [await runCreate(context, home, 'hold')]);
    if (selected.has('create-webhooks')) {
      await group(`create-webhooks (${home.label})`, async () => [await runCreate(context, home, 'ok')]);
    }
    const reads = (['list-20', 'list-100', 'get', 'delete', 'delete-404'] as const).filter((name) => selected.has(name));
    if (reads.length) await group(`${reads.join(', ')} (${home.label})`, () => runReads(context, home, reads));
  }
  return results;
}
