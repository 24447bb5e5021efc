import { join } from 'node:path';
import pg from 'pg';
import type { BenchContext } from '../lib/bench-context.js';
import type { ScenarioName } from '../lib/bench-options.js';
import type { BenchPostgres } from '../lib/bench-postgres.js';
import { runPairedRounds, type PairedResult, type PairedScenario } from '../lib/paired-rounds.js';
import type { Contestant, ServerConfig } from '../lib/server-launcher.js';
import { startServer, type RunningServer } from '../lib/server-process.js';
import { startReceiver } from '../../test/support/webhook-receiver.js';
import { BENCH_TOKENS, createScenario, deleteScenario, getScenario, listScenario, seedReadServer } from './http-scenarios.js';

interface Pair {
  readonly service: RunningServer;
  readonly baseline: RunningServer;
}

/** Where a pair keeps its data: SQLite files in the work folder, or a schema of its own per server on the bench PostgreSQL database. */
interface PairHome {
  /** Report label, e.g. `sqlite, logging off`. */
  readonly label: string;
  /** The settings of one server of the pair `name` (creates its file or schema). */
  config(name: string, who: Contestant): Promise<ServerConfig>;
  /** Removes what `config` created for the pair `name` (its servers have stopped). */
  release(name: string): Promise<void>;
  /** Brings what seeding wrote to a steady state before any round, so no background work lands in one contestant's rounds. */
  settle?(name: string): Promise<void>;
}

function localHome(context: BenchContext, storage: 'sqlite' | 'memory', logging: boolean): PairHome {
  return {
    label: `${storage}, logging ${logging ? 'on' : 'off'}`,
    config: async (name, who) => ({ storage, dbFile: join(context.workDir, `${name}-${storage}-${logging}-${who}.db`), logging, tokens: BENCH_TOKENS }),
    release: async () => {},
  };
}

function postgresHome(postgres: BenchPostgres, logging: boolean): PairHome {
  const schemas = new Map<string, string[]>();
  return {
    label: `postgres, logging ${logging ? 'on' : 'off'}`,
    async config(name, who) {
      const schema = await postgres.createSchema(`${name}_${logging}_${who}`);
      schemas.set(name, [...(schemas.get(name) ?? []), schema]);
      return { ...postgres.serverConfig(schema), logging, tokens: BENCH_TOKENS };
    },
    // Freshly inserted rows make their first readers set hint bits, and autovacuum would get to them
    // during whichever contestant's round: both done now, for both schemas.
    async settle(name) {
      for (const schema of schemas.get(name) ?? []) await postgres.query(`VACUUM (ANALYZE) ${pg.escapeIdentifier(schema)}.plants`);
    },
    async release(name) {
      for (const schema of schemas.get(name) ?? []) await postgres.dropSchema(schema);
      schemas.delete(name);
    },
  };
}

async function withPair<T>(context: BenchContext, home: PairHome, name: string, extra: Partial<ServerConfig>, run: (pair: Pair) => Promise<T>): Promise<T> {
  const start = async (who: Contestant) =>
    startServer(
      context.launcher.spec(who, { ...(await home.config(name, who)), ...extra, ...context.profile(`${name}-${home.label.replace(/\W+/g, '-')}-${who}`) }),
    );
  const servers: RunningServer[] = [];
  try {
    for (const who of ['service', 'baseline'] as const) servers.push(await start(who));
    return await run({ service: servers[0]!, baseline: servers[1]! });
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
    await home.release(name);
  }
}

/**
 * Create with one matching subscription in both servers, so both write the
 * plant and one outbox row in one transaction. `create`: the receiver never
 * answers, which keeps delivery out of the measurement (the dispatcher's
 * wake-up per commit is part of the create path and stays measured).
 * `create-webhooks`: the service delivers every webhook to a receiver
 * answering 200, the baseline does not: the full cost, for information.
 */
async function runCreate(context: BenchContext, home: PairHome, name: 'create' | 'create-webhooks'): Promise<PairedResult> {
  const receiver = await startReceiver();
  const hold = name === 'create';
  if (hold) receiver.reply(() => 'hang');
  const scenario = createScenario(
    name,
    hold
      ? 'POST /plants with unique ids; one subscription configured in both (plant + outbox row per create); receiver holds requests, so webhook sending is excluded'
      : 'POST /plants with unique ids; the service also delivers every webhook to a loopback receiver answering 200 (the baseline only queues it)',
  );
  const extra = { webhooks: [{ url: receiver.url(), secret: receiver.secret }], webhookTimeout: hold ? '1h' : '15s' };
  return withPair(context, home, name, extra, async (pair) => {
    try {
      return await runPairedRounds(scenario, home.label, pair, context.options, context.log);
    } finally {
      // Receiver first: its held requests then fail at once instead of making the service's shutdown wait for them.
      await receiver.close();
    }
  });
}

type ReadName = 'list-20' | 'list-100' | 'get' | 'delete' | 'delete-404';

/** The read scenarios and delete share one pair per storage, seeded once (delete works in its own tenant). */
async function runReads(context: BenchContext, home: PairHome, wanted: readonly ReadName[]): Promise<PairedResult[]> {
  const { options } = context;
  return withPair(context, home, 'reads', {}, async (pair) => {
    const deletes = wanted.includes('delete') ? options.deleteAmount : 0;
    context.log(`  seeding ${options.seedPlants} plants (+${deletes * (options.rounds + 1)} to delete) into each ${home.label} server`);
    for (const server of [pair.service, pair.baseline]) await seedReadServer(server, options.seedPlants, deletes, options.rounds + 1);
    await home.settle?.('reads');
    const scenarios: Record<ReadName, PairedScenario> = {
      'list-20': listScenario(20, options.seedPlants),
      'list-100': listScenario(100, options.seedPlants),
      get: getScenario(options.seedPlants),
      delete: deleteScenario(options.deleteAmount),
      'delete-404': deleteScenario(),
    };
    const results: PairedResult[] = [];
    for (const name of wanted) {
      context.log(`  ${name} (${home.label})`);
      results.push(await runPairedRounds(scenarios[name], home.label, pair, options, context.log));
    }
    return results;
  });
}

/**
 * The selected paired HTTP scenarios: on SQLite and memory as `--storage`
 * and `--logging` say, or, given `postgres`, the pg-… ones with logging off
 * and on (named like the others, so they share their tables and targets).
 * A group that fails is reported through `onError` and the others still run.
 */
export async function runHttpSuite(context: BenchContext, onError: (name: string, error: unknown) => void, postgres?: BenchPostgres): Promise<PairedResult[]> {
  const { options } = context;
  const prefix = postgres ? 'pg-' : '';
  const selected = (name: string) => options.scenarios.has(`${prefix}${name}` as ScenarioName);
  const homes = postgres
    ? [false, true].map((logging) => postgresHome(postgres, logging))
    : options.storages.flatMap((storage) => options.logging.map((logging) => localHome(context, storage, logging)));
  const results: PairedResult[] = [];
  const group = async (name: string, run: () => Promise<PairedResult[]>) => {
    context.log(name);
    try {
      results.push(...(await run()));
    } catch (error) {
      onError(name, error);
    }
  };
  for (const home of homes) {
    for (const name of ['create', 'create-webhooks'] as const) {
      if (selected(name)) await group(`${prefix}${name} (${home.label})`, async () => [await runCreate(context, home, name)]);
    }
    const reads = (['list-20', 'list-100', 'get', 'delete', 'delete-404'] as const).filter(selected);
    if (reads.length) await group(`${reads.map((name) => prefix + name).join(', ')} (${home.label})`, () => runReads(context, home, reads));
  }
  return results;
}
