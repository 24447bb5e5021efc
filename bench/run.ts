// `pnpm bench`: the service against lean node:http baselines, in one run.
// See bench/lib/report.ts (method notes) for what is measured and how.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { betterSqlite3Path } from './baselines/sqlite-driver.js';
import type { BenchContext } from './lib/bench-context.js';
import { parseBenchOptions, POSTGRES_SCENARIOS, type ScenarioName } from './lib/bench-options.js';
import { openBenchPostgres } from './lib/bench-postgres.js';
import { compileBaselines } from './lib/compile-baselines.js';
import { describePinning, pinHarness, planCpuPinning, probePinning } from './lib/cpu-pinning.js';
import { machineInfo } from './lib/machine-info.js';
import { repoRoot, startBenchCommand } from './lib/bench-entry.js';
import { ensureSqliteAddon } from './lib/node-line.js';
import { renderReport } from './lib/report.js';
import { createServerLauncher } from './lib/server-launcher.js';
import type { BenchResults } from './lib/targets.js';
import { checkTargets } from './lib/targets.js';
import { runBigListScenario, runPgBigListScenario } from './scenarios/big-list-scenario.js';
import { brokerDestinationsSection, runBrokerDestinationsScenario, type BrokerDestinationsResult } from './scenarios/broker-destinations-scenario.js';
import { runEndpointScaleScenario } from './scenarios/endpoint-scale-scenario.js';
import { runFairDeliveryScenario } from './scenarios/fair-delivery-scenario.js';
import { runFetchHandlerScenario } from './scenarios/fetch-handler-scenario.js';
import { runFilteredFanOutScenario } from './scenarios/filtered-fan-out-scenario.js';
import { runOrderedDeliveryScenario } from './scenarios/ordered-delivery-scenario.js';
import { runPgHostPoolScenario } from './scenarios/pg-host-pool-scenario.js';
import { runHttpSuite } from './scenarios/http-suite.js';
import { runStartupScenario } from './scenarios/startup-scenario.js';
import { runSteadyStateScenario } from './scenarios/steady-state-scenario.js';
import { runTracingScenario } from './scenarios/tracing-scenario.js';
import { runWebhookScenario } from './scenarios/webhook-scenario.js';

const { options, startedAt, log } = startBenchCommand(parseBenchOptions, 'bench');
// First of all, so that everything the harness does, from transpiling the baselines on, runs on its own CPU.
const pinning = planCpuPinning(options.pin, probePinning());
pinHarness(pinning);
log(describePinning(pinning));
const workDir = mkdtempSync(join(tmpdir(), 'plant-store-bench-'));
const betterSqlite3 = betterSqlite3Path();
ensureSqliteAddon(repoRoot, options.node, betterSqlite3, log);
const baselineDir = join(workDir, 'baselines');
compileBaselines(join(repoRoot, 'bench/baselines'), baselineDir);

const context: BenchContext = {
  options,
  launcher: createServerLauncher({ repoRoot, serviceFrom: options.serviceFrom, baselineDir, ...(pinning.pinned ? { serverCpu: pinning.serverCpu } : {}) }),
  workDir,
  ...(pinning.pinned ? { serverCpu: pinning.serverCpu } : {}),
  log,
  profile: (name) => (options.cpuProfDir ? { nodeFlags: ['--cpu-prof', '--cpu-prof-dir', join(options.cpuProfDir, name)] } : {}),
};
const machine = machineInfo(repoRoot, betterSqlite3, pinning);
if (options.cpuProfDir) mkdirSync(options.cpuProfDir, { recursive: true });

const errors: string[] = [];
function failed(name: string, error: unknown): void {
  const message = error instanceof Error ? error.message : String(error);
  log(`${name} FAILED: ${message}`);
  errors.push(`${name}: ${message.split('\n')[0]}`);
}
/** Runs a scenario when it was selected; a failure is reported, and the run goes on. */
async function attempt<T>(name: ScenarioName, run: () => Promise<T>): Promise<T | undefined> {
  if (!selected.has(name)) return undefined;
  log(name);
  try {
    return await run();
  } catch (error) {
    failed(name, error);
    return undefined;
  }
}

const selected = options.scenarios;
const skipped: string[] = [];

/** The pg-… scenarios, each server in a schema of its own; skipped with one line when PostgreSQL is unreachable. */
async function runPostgresScenarios(): Promise<
  Pick<BenchResults, 'paired' | 'pgWebhooks' | 'pgOrderedDelivery' | 'pgBigList' | 'pgHostPool' | 'pgSteadyState' | 'pgFilteredFanOut'>
> {
  const wanted = POSTGRES_SCENARIOS.filter((name) => selected.has(name));
  if (wanted.length === 0) return { paired: [] };
  const opened = await openBenchPostgres(options.dbPool);
  if ('unreachable' in opened) {
    const line = `${wanted.join(', ')}: PostgreSQL unreachable (${opened.unreachable}); set PLANT_STORE_BENCH_DATABASE_URL`;
    log(`skipped ${line}`);
    skipped.push(line);
    return { paired: [] };
  }
  const { postgres } = opened;
  try {
    const paired = await runHttpSuite(context, failed, postgres);
    const pgWebhooks = await attempt('pg-webhooks', () => runWebhookScenario(context, postgres));
    const pgOrderedDelivery = await attempt('pg-ordered-delivery', () => runOrderedDeliveryScenario(context, postgres));
    const pgBigList = await attempt('pg-big-list', () => runPgBigListScenario(context, postgres));
    const pgHostPool = await attempt('pg-host-pool', () => runPgHostPoolScenario(context, postgres));
    const pgSteadyState = await attempt('pg-steady-state', () => runSteadyStateScenario(context, { kind: 'postgres', postgres }));
    const pgFilteredFanOut = await attempt('pg-filtered-fan-out', () => runFilteredFanOutScenario(context, postgres));
    return { paired, pgWebhooks, pgOrderedDelivery, pgBigList, pgHostPool, pgSteadyState, pgFilteredFanOut };
  } finally {
    await postgres.dropAll();
  }
}

let results: BenchResults = { paired: [] };
let brokerDestinations: BrokerDestinationsResult | undefined;
try {
  const startup = await attempt('startup', () => runStartupScenario(context));
  const http = ['create', 'create-webhooks', 'list-20', 'list-100', 'get', 'delete', 'delete-404'] as const;
  const paired = http.some((name) => selected.has(name)) ? await runHttpSuite(context, failed) : [];
  const webhooks = await attempt('webhooks', () => runWebhookScenario(context));
  const fairDelivery = await attempt('fair-delivery', () => runFairDeliveryScenario(context));
  const orderedDelivery = await attempt('ordered-delivery', () => runOrderedDeliveryScenario(context));
  const bigList = await attempt('big-list', () => runBigListScenario(context));
  const steadyState = await attempt('steady-state', () => runSteadyStateScenario(context, { kind: 'sqlite' }));
  const tracing = selected.has('tracing') ? await runTracingScenario(context, failed) : undefined;
  const fetchHandler = selected.has('fetch-handler') ? await runFetchHandlerScenario(context, failed) : undefined;
  brokerDestinations = await attempt('broker-destinations', () => runBrokerDestinationsScenario(context));
  const filteredFanOut = await attempt('filtered-fan-out', () => runFilteredFanOutScenario(context));
  const endpointScale = await attempt('endpoint-scale', () => runEndpointScaleScenario(context));
  const onPostgres = await runPostgresScenarios();
  results = {
    ...onPostgres,
    paired: [...paired, ...onPostgres.paired],
    startup,
    webhooks,
    fairDelivery,
    orderedDelivery,
    bigList,
    steadyState,
    tracing,
    fetchHandler,
    filteredFanOut,
    endpointScale,
  };
} finally {
  if (!options.keep) rmSync(workDir, { recursive: true, force: true });
  else log(`kept ${workDir}`);
}

const command = `pnpm bench${process.argv.length > 2 ? ` ${process.argv.slice(2).join(' ')}` : ''}`;
const report = [
  renderReport({
    startedAt,
    seconds: (Date.now() - startedAt.getTime()) / 1000,
    command,
    options,
    machine,
    results,
    errors,
    skipped,
  }),
  brokerDestinationsSection(brokerDestinations),
]
  .filter(Boolean)
  .join('\n');
for (const check of checkTargets(results)) log(`${check.pass ? 'pass' : 'MISS'}  ${check.target}: ${check.measured}`);
if (options.write) {
  mkdirSync(options.outDir, { recursive: true });
  const stamp = startedAt.toISOString().slice(0, 16).replace('T', '-').replace(':', '');
  const dated = join(options.outDir, `${stamp}${options.quick ? '-quick' : ''}.md`);
  writeFileSync(join(options.outDir, 'latest.md'), report);
  writeFileSync(dated, report);
  log(`report: ${join(options.outDir, 'latest.md')} and ${dated}`);
} else {
  process.stdout.write(report);
}
// Failing to run a scenario is an error; missing a target is a finding, reported above.
process.exitCode = errors.length ? 1 : 0;
