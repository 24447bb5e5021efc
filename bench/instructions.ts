// `pnpm bench:instructions`: instructions per request of the service under
// valgrind's callgrind, on SQLite. Counts repeat closely for the same build
// and inputs however busy the machine is, where req/s does not; for telling
// whether a change made the request path cheaper, and where the difference goes.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { betterSqlite3Path } from './baselines/sqlite-driver.js';
import { startCounted, type CountedProcess } from './lib/callgrind.js';
import { largestDifferences, type FunctionDifference } from './lib/callgrind-functions.js';
import { prepareCommitTree, type CommitTree } from './lib/commit-tree.js';
import { compileBaselines } from './lib/compile-baselines.js';
import { parseInstructionOptions, type CountedScenario } from './lib/instruction-options.js';
import { perRequest, renderInstructionReport, type BuildCounts, type PerRequest } from './lib/instruction-report.js';
import { runLoad } from './lib/load.js';
import { repoRoot, startBenchCommand } from './lib/bench-entry.js';
import { ensureSqliteAddon } from './lib/node-line.js';
import type { PairedScenario } from './lib/paired-rounds.js';
import { createServerLauncher, type Contestant, type ServerConfig, type ServerLauncher } from './lib/server-launcher.js';
import { BENCH_TOKENS, createScenario, getScenario, listScenario, seedReadServer } from './scenarios/http-scenarios.js';
import { startReceiver } from '../test/support/webhook-receiver.js';

const { options, startedAt, log } = startBenchCommand(parseInstructionOptions, 'instructions');
const valgrindVersion = execFileSync('valgrind', ['--version'], { encoding: 'utf8' }).trim();
const workDir = mkdtempSync(join(tmpdir(), 'plant-store-instructions-'));
const dumpDir = join(workDir, 'dumps');
mkdirSync(dumpDir);

/** Requests sent to prime a window (see CountedProcess.count): enough to reach every code path the counted ones take. */
const PRIME = 100;

/** One server build to count: how to launch it, and whether it is the service or the lean server. */
interface Build {
  readonly label: string;
  readonly commit?: string;
  readonly who: Contestant;
  readonly launcher: ServerLauncher;
}

const trees: CommitTree[] = [];
const errors: string[] = [];
const builds: BuildCounts[] = [];
const functionsOf = new Map<string, Map<CountedScenario, Map<string, number>>>();
try {
  const baselineDir = join(workDir, 'baselines');
  const launcherFor = (root: string) => createServerLauncher({ repoRoot: root, serviceFrom: 'dist', baselineDir });
  const toCount: Build[] = [];
  if (options.commits) {
    for (const rev of options.commits) {
      const tree = prepareCommitTree(repoRoot, rev, join(workDir, 'trees'), log);
      trees.push(tree);
      toCount.push({ label: tree.label, commit: tree.commit, who: 'service', launcher: launcherFor(tree.dir) });
    }
  } else {
    toCount.push({ label: 'working tree', who: 'service', launcher: launcherFor(repoRoot) });
  }
  if (options.lean) {
    ensureSqliteAddon(repoRoot, options.node, betterSqlite3Path(), log);
    compileBaselines(join(repoRoot, 'bench/baselines'), baselineDir);
    toCount.push({ label: 'lean server', who: 'baseline', launcher: launcherFor(repoRoot) });
  }
  const counts = new Map(toCount.map((build) => [build, new Map<CountedScenario, PerRequest[]>()]));
  // Repeats outermost, and the builds of a repeat side by side: a count does not depend on what else runs on the machine.
  for (let repeat = 1; repeat <= options.repeats; repeat++) {
    await Promise.all(
      toCount.map(async (build) => {
        try {
          const windows = await countBuild(build, repeat);
          for (const [scenario, window] of windows) {
            const list = counts.get(build)!.get(scenario) ?? [];
            list.push(window.perRequest);
            counts.get(build)!.set(scenario, list);
            log(`${build.label} ${scenario} #${repeat}: ${Math.round(window.perRequest.total).toLocaleString('en-US')} instructions per request`);
            if (repeat === 1) {
              const byScenario = functionsOf.get(build.label) ?? new Map();
              byScenario.set(scenario, window.functions);
              functionsOf.set(build.label, byScenario);
            }
          }
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          log(`${build.label} #${repeat} FAILED: ${message}`);
          errors.push(`${build.label} #${repeat}: ${message.split('\n')[0]}`);
        }
      }),
    );
  }
  for (const build of toCount) builds.push({ label: build.label, ...(build.commit ? { commit: build.commit } : {}), counts: counts.get(build)! });
} finally {
  for (const tree of trees) tree.remove();
  if (options.keep) log(`kept ${workDir} (callgrind dumps in ${dumpDir})`);
  else rmSync(workDir, { recursive: true, force: true });
}

let functions: Map<CountedScenario, FunctionDifference[]> | undefined;
if (options.functions > 0 && builds.length >= 2) {
  const [a, b] = [functionsOf.get(builds[0]!.label), functionsOf.get(builds[1]!.label)];
  functions = new Map();
  for (const scenario of options.scenarios) {
    const [fa, fb] = [a?.get(scenario), b?.get(scenario)];
    if (fa && fb) functions.set(scenario, largestDifferences(fa, fb, options.functions));
  }
}
const command = `pnpm bench:instructions${process.argv.length > 2 ? ` ${process.argv.slice(2).join(' ')}` : ''}`;
const report = renderInstructionReport({ startedAt, command, nodeVersion: process.versions.node, valgrindVersion, options, builds, functions, errors });
if (options.write) {
  mkdirSync(options.outDir, { recursive: true });
  const stamp = startedAt.toISOString().slice(0, 16).replace('T', '-').replace(':', '');
  const dated = join(options.outDir, `${stamp}-instructions.md`);
  writeFileSync(dated, report);
  log(`report: ${dated}`);
} else {
  process.stdout.write(report);
}
process.exitCode = errors.length ? 1 : 0;

/** What one counted window gave, per request. */
interface Window {
  readonly perRequest: PerRequest;
  readonly functions: Map<string, number>;
}

/** One repeat of a build: create on a server of its own, the reads on one seeded server; each server a fresh process. */
async function countBuild(build: Build, repeat: number): Promise<Map<CountedScenario, Window>> {
  const windows = new Map<CountedScenario, Window>();
  const file = (name: string) => join(workDir, `${build.label.replace(/\W+/g, '-')}-${repeat}-${name}.db`);
  if (options.scenarios.includes('create')) {
    // As the bench's create: one subscription whose receiver never answers, so the outbox row is written and no delivery counted.
    const receiver = await startReceiver();
    receiver.reply(() => 'hang');
    try {
      const extra = { webhooks: [{ url: receiver.url(), secret: receiver.secret }], webhookTimeout: '1h' };
      await withServer(build, { dbFile: file('create'), ...extra }, async (server) => {
        windows.set('create', await warmAndCount(server, createScenario('create', '')));
      });
    } finally {
      await receiver.close();
    }
  }
  const reads = options.scenarios.filter((name) => name !== 'create');
  if (reads.length) {
    await withServer(build, { dbFile: file('reads') }, async (server) => {
      log(`${build.label} #${repeat}: seeding ${options.seed.toLocaleString('en-US')} plants`);
      await seedReadServer({ url: server.url, label: build.label }, options.seed, 0, 0);
      for (const name of reads) {
        const scenario = name === 'get' ? getScenario(options.seed) : listScenario(name === 'list-20' ? 20 : 100, options.seed);
        // One scenario that fails leaves the others on this server counted.
        try {
          windows.set(name, await warmAndCount(server, scenario));
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          log(`${build.label} ${name} #${repeat} FAILED: ${message}`);
          errors.push(`${build.label} ${name} #${repeat}: ${message.split('\n')[0]}`);
        }
      }
    });
  }
  return windows;
}

async function withServer(build: Build, config: Partial<ServerConfig>, run: (server: CountedProcess) => Promise<void>): Promise<void> {
  const spec = build.launcher.spec(build.who, {
    storage: 'sqlite',
    logging: options.logging,
    tokens: BENCH_TOKENS,
    // V8 then writes /tmp/perf-PID.map, which names the JIT code callgrind sees as bare addresses.
    ...(options.functions > 0 ? { nodeFlags: ['--perf-basic-prof'] } : {}),
    ...config,
  });
  // Under valgrind a request can wait longer than the service's default timeouts, and a 408 or a keep-alive
  // connection closed under a request would spoil the window.
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...spec.env,
    PLANT_STORE_HEADERS_TIMEOUT: '1h',
    PLANT_STORE_REQUEST_TIMEOUT: '1h',
    PLANT_STORE_KEEP_ALIVE_TIMEOUT: '1h',
  };
  for (const name of Object.keys(env)) if (name.startsWith('OTEL_')) delete env[name];
  log(`${spec.label} of ${build.label} under callgrind`);
  const server = await startCounted(spec.args, env, dumpDir);
  try {
    await run(server);
  } finally {
    await server.stop();
  }
}

/**
 * `options.warm` requests uncounted, `PRIME` to prime the window, then
 * `options.measured` counted: phases 0, 1 and 2 of the scenario, so creates never repeat an id.
 */
async function warmAndCount(server: CountedProcess, scenario: PairedScenario): Promise<Window> {
  const load = (phase: number, amount: number) =>
    runLoad({
      url: server.url,
      connections: options.connections,
      amount,
      headers: scenario.headers,
      next: scenario.requests(phase),
      // The stall of the priming requests; a counted request still answers within seconds.
      timeoutS: 300,
    });
  if (options.warm > 0) await load(0, options.warm);
  let requests = 0;
  const window = await server.count(
    async () => void (await load(1, PRIME)),
    async () => {
      const result = await load(2, options.measured);
      if (result.failures > 0) throw new Error(`${scenario.name}: ${result.failures} of the counted requests failed: ${JSON.stringify(result.statuses)}`);
      requests = result.requests;
    },
  );
  return {
    perRequest: perRequest(window.split, requests),
    functions: new Map([...window.functions].map(([name, count]) => [name, count / requests])),
  };
}
