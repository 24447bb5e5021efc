// Instructions per request of the built service with tracing off and on,
// counted by valgrind's callgrind: the same figure from run to run within
// about 1 %, on a machine whose other tenants make CPU time vary by 30 %.
// For telling whether a change to the request path (tracing's above all)
// made it cheaper; what a request costs in time is the bench's business.
//
// Run: node --import tsx bench/instruction-count.ts [--storage memory,sqlite]
//        [--scenario list,create] [--warm N] [--measured N] [--build DIR,…]
//        [--tracing-sampler NAME[:ARG]] [--tracing-env NAME=VALUE,…]
//        [--functions N]
// Each service runs about 40 s under valgrind; it needs the built CLI
// (`pnpm build`) of every --build (a checkout of another commit, say).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startOtlpSink } from '../test/support/otlp-sink.js';
import { startCounted, type InstructionSplit } from './lib/callgrind.js';
import { largestDifferences } from './lib/callgrind-functions.js';
import { runLoad, type LoadRequest } from './lib/load.js';
import { seededRandom } from './lib/prng.js';

const { values } = parseArgs({
  options: {
    storage: { type: 'string', default: 'memory,sqlite' },
    scenario: { type: 'string', default: 'list,create' },
    warm: { type: 'string', default: '20000' },
    measured: { type: 'string', default: '3000' },
    build: { type: 'string', default: '.' },
    // As the bench's --tracing-sampler: NAME[:ARG] for OTEL_TRACES_SAMPLER(_ARG); every request is recorded without it.
    'tracing-sampler': { type: 'string' },
    // More OTEL_* variables of the traced service, NAME=VALUE pairs split at commas (so a value holds none),
    // e.g. OTEL_BSP_MAX_EXPORT_BATCH_SIZE=512,OTEL_BSP_MAX_QUEUE_SIZE=2048 to count the SDK's smaller batches.
    'tracing-env': { type: 'string', default: '' },
    // The N functions whose own instructions per request differ most between tracing off and on, JIT code named
    // from V8's perf map (the services run with --perf-basic-prof): where a difference comes from.
    functions: { type: 'string', default: '0' },
  },
});
const FUNCTIONS = Number(values.functions);
if (!Number.isInteger(FUNCTIONS) || FUNCTIONS < 0) throw new Error(`--functions takes a count, got ${values.functions}`);
const [SAMPLER, SAMPLER_ARG] = values['tracing-sampler']?.split(':') ?? [];
const TRACING_ENV = tracingEnv(values['tracing-env']);
const WARM = Number(values.warm);
const MEASURED = Number(values.measured);
const SEEDED = 2_000;
const HEADERS = { authorization: 'Bearer bench', 'content-type': 'application/json' };

interface Case {
  readonly build: string;
  readonly storage: string;
  readonly scenario: string;
  readonly traced: boolean;
}

const sink = await startOtlpSink({ keep: false });
const dir = await mkdtemp(join(tmpdir(), 'instruction-count-'));
try {
  process.stdout.write('| build | storage | scenario | tracing | instructions per request | compile | gc |\n| --- | --- | --- | --- | --- | --- | --- |\n');
  for (const build of values.build.split(',')) {
    for (const storage of values.storage.split(',')) {
      for (const scenario of values.scenario.split(',')) {
        const off = await countCase({ build, storage, scenario, traced: false });
        const on = await countCase({ build, storage, scenario, traced: true });
        process.stdout.write(`|  |  |  | **on − off** | **${thousands(on.split.mutator - off.split.mutator)}** |  |  |\n`);
        if (FUNCTIONS > 0) printFunctions(off.functions, on.functions);
      }
    }
  }
} finally {
  await sink.close();
  await rm(dir, { recursive: true, force: true });
}

/** What one service's window counted, per request: the split, and each function's own instructions (JIT code named with `--functions`). */
interface CountedCase {
  readonly split: InstructionSplit;
  readonly functions: Map<string, number>;
}

/** Starts one service, seeds and warms it, counts `MEASURED` requests; prints the split per request and returns it. */
async function countCase(c: Case): Promise<CountedCase> {
  const service = await startCounted(serveArgs(c), serveEnv(c.traced), dir);
  const next = requests(c.scenario);
  await runLoad({ url: service.url, connections: 8, amount: SEEDED, headers: HEADERS, expectedStatus: 201, next: requests('create', 1) });
  await runLoad({ url: service.url, connections: 16, amount: WARM, headers: HEADERS, next });
  await service.count();
  const load = await runLoad({ url: service.url, connections: 16, amount: MEASURED, headers: HEADERS, next });
  const { split, functions } = await service.finish();
  if (load.failures > 0) throw new Error(`${load.failures} of the counted requests failed: ${JSON.stringify(load.statuses)}`);
  const per = { mutator: split.mutator / load.requests, compile: split.compile / load.requests, gc: split.gc / load.requests };
  process.stdout.write(
    `| ${c.build} | ${c.storage} | ${c.scenario} | ${c.traced ? 'on' : 'off'} | ${thousands(per.mutator)} | ${thousands(per.compile)} | ${thousands(per.gc)} |\n`,
  );
  return { split: per, functions: new Map([...functions].map(([name, count]) => [name, count / load.requests])) };
}

/** The functions whose instructions per request differ most between the two services, as rows under the pair's. */
function printFunctions(off: Map<string, number>, on: Map<string, number>): void {
  process.stdout.write(`\n| function (own instructions per request) | off | on | on − off |\n| --- | --- | --- | --- |\n`);
  for (const row of largestDifferences(off, on, FUNCTIONS)) {
    process.stdout.write(`| \`${row.name.slice(0, 100).replaceAll('|', '\\|')}\` | ${Math.round(row.off)} | ${Math.round(row.on)} | ${Math.round(row.on - row.off)} |\n`);
  }
  process.stdout.write('\n');
}

function serveArgs(c: Case): string[] {
  const cli = join(resolve(c.build), 'packages/server/dist/cli.js');
  // V8 writes /tmp/perf-PID.map, which names the JIT code callgrind sees as addresses.
  const node = FUNCTIONS > 0 ? ['--perf-basic-prof', cli] : [cli];
  const args = [...node, 'serve', '--storage', c.storage, '--port', '0', '--log-level', 'info', '--tokens', 'bench=bench'];
  return c.storage === 'sqlite' ? [...args, '--db', join(dir, `${c.storage}-${c.traced}-${Date.now()}.db`)] : args;
}

function serveEnv(traced: boolean): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'production' };
  for (const name of Object.keys(env)) if (name.startsWith('OTEL_')) delete env[name];
  if (!traced) return env;
  const sampler = SAMPLER === undefined ? {} : { OTEL_TRACES_SAMPLER: SAMPLER, ...(SAMPLER_ARG === undefined ? {} : { OTEL_TRACES_SAMPLER_ARG: SAMPLER_ARG }) };
  return { ...env, OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, OTEL_SERVICE_NAME: 'instruction-count', ...sampler, ...TRACING_ENV };
}

/** `NAME=VALUE,…` of `--tracing-env`; only `OTEL_*` names, so a typo cannot quietly change something else. */
function tracingEnv(list: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const pair of list.split(',').filter((item) => item !== '')) {
    const at = pair.indexOf('=');
    const name = pair.slice(0, at);
    if (at < 0 || !name.startsWith('OTEL_')) throw new Error(`--tracing-env takes OTEL_NAME=VALUE pairs, got ${JSON.stringify(pair)}`);
    env[name] = pair.slice(at + 1);
  }
  return env;
}

/** `create`: new plants with increasing ids, from `firstId`. `list`: pages of 20 from seeded cursors among the seeded plants. */
function requests(scenario: string, firstId = SEEDED + 1): () => LoadRequest {
  const random = seededRandom(7);
  let id = firstId;
  if (scenario === 'list') return () => ({ method: 'GET', path: `/plants?limit=20&after=${random(SEEDED - 20)}` });
  if (scenario !== 'create') throw new Error(`unknown scenario ${scenario}: list or create`);
  return () => ({ method: 'POST', path: '/plants', body: `{"id":${id++},"name":"Counted plant","tag":"bench"}` });
}

function thousands(count: number): string {
  return `${(count / 1000).toFixed(1)}k`;
}
