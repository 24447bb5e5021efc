import { parseArgs, type ParseArgsConfig } from 'node:util';
import { NODE_LINES, type NodeLine } from './node-line.js';
import type { ServiceFrom } from './server-launcher.js';

/** Every scenario, in the order a run executes them. */
export const SCENARIOS = [
  'startup',
  'create',
  'create-webhooks',
  'list-20',
  'list-100',
  'get',
  'delete',
  'delete-404',
  'webhooks',
  'fair-delivery',
  'ordered-delivery',
  'big-list',
  'steady-state',
  'tracing',
  'fetch-handler',
  'broker-destinations',
  'filtered-fan-out',
  'endpoint-scale',
  'pg-create',
  'pg-list-20',
  'pg-list-100',
  'pg-get',
  'pg-delete-404',
  'pg-webhooks',
  'pg-ordered-delivery',
  'pg-big-list',
  'pg-host-pool',
  'pg-steady-state',
  'pg-filtered-fan-out',
] as const;
export type ScenarioName = (typeof SCENARIOS)[number];

/** The scenarios on PostgreSQL (PLANT_STORE_BENCH_DATABASE_URL); skipped with one line when it is unreachable. */
export const POSTGRES_SCENARIOS: readonly ScenarioName[] = SCENARIOS.filter((name) => name.startsWith('pg-'));

/** Scenarios that run for minutes: only when named with --scenario. */
export const OPT_IN_SCENARIOS: readonly ScenarioName[] = ['steady-state', 'pg-steady-state', 'broker-destinations', 'endpoint-scale'];

const USAGE = `usage: pnpm bench [--node 20|24|26] [--quick] [--scenario name[,name…]] [--storage sqlite|memory] [--logging off|on|both]
  [--service dist|source|baseline] [--rounds N] [--round-seconds S] [--warmup-seconds S]
  [--connections N] [--big-list N] [--db-pool N] [--steady-seconds S] [--steady-retention S]
  [--no-write] [--out DIR] [--cpu-prof DIR] [--keep] [--pin on|off] [--tracing-sampler NAME[:ARG]] [--endpoint-deliveries N]
--node: the Node line of the whole run (default 24, the line teams deploy), fetched by scripts/node-line.sh
scenarios: ${SCENARIOS.join(', ')}
${OPT_IN_SCENARIOS.join(', ')} run only when named; the steady-state ones run for minutes (--steady-seconds, default 300, --quick 40);
  broker-destinations needs RabbitMQ, NATS JetStream, Redis and Mosquitto on their usual loopback ports;
  endpoint-scale on SQLite and PostgreSQL with --endpoint-deliveries per run (default 20000, --quick 3000)
pg-… scenarios run on PLANT_STORE_BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test),
  each server in a schema of its own, dropped afterwards; skipped when the database is unreachable
--service baseline: a baseline plays the service (self-test of the harness; HTTP scenarios only)
--pin on (default): every server on CPU 0 (taskset -c 0), the harness with the load generator on CPU 1;
  run unpinned, with one line saying why, when taskset is missing or there is one CPU; --pin off: never pinned
--tracing-sampler: the traced service's OTEL_TRACES_SAMPLER in the tracing scenario, with OTEL_TRACES_SAMPLER_ARG
  after a colon (parentbased_traceidratio:0.01, always_off); every request is recorded without it`;

function positive(name: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!(value > 0)) throw new Error(`--${name} must be a positive number\n${USAGE}`);
  return value;
}

const ARG_OPTIONS = {
  node: { type: 'string', default: '24' },
  quick: { type: 'boolean', default: false },
  scenario: { type: 'string', multiple: true },
  storage: { type: 'string' },
  logging: { type: 'string', default: 'both' },
  service: { type: 'string', default: 'dist' },
  rounds: { type: 'string' },
  'round-seconds': { type: 'string' },
  'warmup-seconds': { type: 'string' },
  connections: { type: 'string' },
  'big-list': { type: 'string' },
  'db-pool': { type: 'string' },
  'steady-seconds': { type: 'string' },
  'steady-retention': { type: 'string' },
  'no-write': { type: 'boolean', default: false },
  out: { type: 'string', default: 'bench/reports' },
  'cpu-prof': { type: 'string' },
  keep: { type: 'boolean', default: false },
  pin: { type: 'string', default: 'on' },
  'tracing-sampler': { type: 'string' },
  'endpoint-deliveries': { type: 'string' },
  help: { type: 'boolean', default: false },
} as const satisfies ParseArgsConfig['options'];

type ArgValues = ReturnType<typeof parseArgs<{ options: typeof ARG_OPTIONS }>>['values'];

/** The named scenarios, after the choice-valued options are checked. */
function checkedScenarios(values: ArgValues): string[] {
  const requested = (values.scenario ?? []).flatMap((entry) => entry.split(',')).filter(Boolean);
  for (const name of requested) {
    if (!(SCENARIOS as readonly string[]).includes(name)) throw new Error(`unknown scenario '${name}'\n${USAGE}`);
  }
  if (values.storage !== undefined && values.storage !== 'sqlite' && values.storage !== 'memory') {
    throw new Error(`--storage must be sqlite or memory\n${USAGE}`);
  }
  if (!['off', 'on', 'both'].includes(values.logging)) throw new Error(`--logging must be off, on or both\n${USAGE}`);
  if (!['dist', 'source', 'baseline'].includes(values.service)) throw new Error(`--service must be dist, source or baseline\n${USAGE}`);
  if (values.pin !== 'on' && values.pin !== 'off') throw new Error(`--pin must be on or off\n${USAGE}`);
  if (!(NODE_LINES as readonly string[]).includes(values.node)) throw new Error(`--node must be one of ${NODE_LINES.join(', ')}\n${USAGE}`);
  return requested;
}

export type BenchOptions = ReturnType<typeof parseBenchOptions>;

/** Parses the command line; quick mode shortens every phase so a whole run stays under about three minutes. */
export function parseBenchOptions(argv: readonly string[]) {
  // `pnpm bench -- --quick` hands the script a leading `--`: not a positional argument here.
  const { values } = parseArgs({ args: argv[0] === '--' ? argv.slice(1) : [...argv], options: ARG_OPTIONS });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const requested = checkedScenarios(values);
  const quick = values.quick;
  return {
    /** The Node line of every process of the run: harness, service, baselines. */
    node: values.node as NodeLine,
    quick,
    scenarios: new Set(
      (requested.length ? requested : SCENARIOS.filter((name) => !OPT_IN_SCENARIOS.includes(name))) as ScenarioName[],
    ) as ReadonlySet<ScenarioName>,
    /** Storages of the non-PostgreSQL scenarios (those select PostgreSQL by name: pg-…). */
    storages: (values.storage ? [values.storage] : ['sqlite', 'memory']) as readonly ('sqlite' | 'memory')[],
    /** Logging of the SQLite and memory HTTP scenarios: off (`--log-level warn`), on, or both in turn. */
    logging: values.logging === 'both' ? [false, true] : [values.logging === 'on'],
    dbPool: Math.round(positive('db-pool', values['db-pool'], 10)),
    serviceFrom: values.service as ServiceFrom,
    connections: positive('connections', values.connections, 32),
    warmupS: positive('warmup-seconds', values['warmup-seconds'], quick ? 1 : 3),
    roundS: positive('round-seconds', values['round-seconds'], quick ? 1.5 : 6),
    rounds: Math.round(positive('rounds', values.rounds, quick ? 2 : 5)),
    /** Deletes per round (delete runs a fixed amount over pre-created ids). */
    deleteAmount: quick ? 3_000 : 15_000,
    seedPlants: 10_000,
    bigListPlants: Math.round(positive('big-list', values['big-list'], 1_000_000)),
    webhookPlants: quick ? 3_000 : 20_000,
    webhookLatencyS: quick ? 3 : 10,
    /** Deliveries queued per run of endpoint-scale (rounded up to whole plants of ten). */
    endpointDeliveries: Math.round(positive('endpoint-deliveries', values['endpoint-deliveries'], quick ? 3_000 : 20_000)),
    startupRuns: quick ? 3 : 7,
    steadyStateS: positive('steady-seconds', values['steady-seconds'], quick ? 40 : 300),
    steadyRetentionS: positive('steady-retention', values['steady-retention'], quick ? 5 : 20),
    write: !values['no-write'],
    outDir: values.out,
    /** Set: every server runs with `--cpu-prof` and writes its profile here (one folder per server). */
    cpuProfDir: values['cpu-prof'],
    keep: values.keep,
    pin: values.pin === 'on',
    tracingSampler: tracingSampler(values['tracing-sampler']),
  };
}

/** The SDK's variables that set the sampler: `OTEL_TRACES_SAMPLER`, and `OTEL_TRACES_SAMPLER_ARG` when an argument is given. */
export function tracingSamplerEnv(sampler: { readonly name: string; readonly arg: string | undefined }): Record<string, string> {
  return sampler.arg === undefined ? { OTEL_TRACES_SAMPLER: sampler.name } : { OTEL_TRACES_SAMPLER: sampler.name, OTEL_TRACES_SAMPLER_ARG: sampler.arg };
}

/** The sampler as its variables say it, for the report and the log. */
export const describeSampler = (sampler: { readonly name: string; readonly arg: string | undefined }) =>
  Object.entries(tracingSamplerEnv(sampler))
    .map(([name, value]) => `\`${name}=${value}\``)
    .join(' and ');

/** `NAME` or `NAME:ARG`, as the SDK's variables take them. */
function tracingSampler(text: string | undefined): { readonly name: string; readonly arg: string | undefined } | undefined {
  if (text === undefined) return undefined;
  const colon = text.indexOf(':');
  const name = colon === -1 ? text : text.slice(0, colon);
  if (!/^[a-z_]+$/.test(name)) throw new Error(`--tracing-sampler must be a sampler name such as always_off or parentbased_traceidratio:0.01\n${USAGE}`);
  return { name, arg: colon === -1 ? undefined : text.slice(colon + 1) };
}
