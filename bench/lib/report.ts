import type { BigListResult } from '../scenarios/big-list-scenario.js';
import type { SteadyStateResult } from '../scenarios/steady-state-scenario.js';
import { endpointScaleSection } from '../scenarios/endpoint-scale-scenario.js';
import { orderedDeliverySection } from '../scenarios/ordered-delivery-scenario.js';
import { filteredFanOutSection } from '../scenarios/filtered-fan-out-scenario.js';
import { pgHostPoolSection } from '../scenarios/pg-host-pool-scenario.js';
import type { WebhookResult } from '../scenarios/webhook-scenario.js';
import { describeSampler, type BenchOptions } from './bench-options.js';
import { describePinning } from './cpu-pinning.js';
import type { MachineInfo } from './machine-info.js';
import type { PairedResult, RoundFigures } from './paired-rounds.js';
import { median } from './stats.js';
import {
  checkTargets,
  medianRatio,
  targeted,
  tracingMinRatio,
  MAX_P99_RATIO,
  MIN_THROUGHPUT_RATIO,
  P99_TARGET_SCENARIOS,
  THROUGHPUT_TARGET_SCENARIOS,
  type BenchResults,
} from './targets.js';

export interface ReportInput {
  readonly startedAt: Date;
  readonly seconds: number;
  readonly command: string;
  readonly options: BenchOptions;
  readonly machine: MachineInfo;
  readonly results: BenchResults;
  /** Scenarios that failed to run, with the reason. */
  readonly errors: readonly string[];
  /** Scenarios skipped on purpose (e.g. PostgreSQL unreachable), with the reason. */
  readonly skipped?: readonly string[];
}

const MiB = 2 ** 20;
const int = (value: number) => (Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : '–');
const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(2) : '–');
const mib = (bytes: number) => (Number.isFinite(bytes) ? (bytes / MiB).toFixed(1) : '–');
const ratio = (value: number) => (Number.isFinite(value) ? `${value.toFixed(2)}x` : '–');
const pct = (value: number) => (Number.isFinite(value) ? value.toFixed(0) : '–');
const mark = (pass: boolean) => (pass ? '✅' : '❌');
const medianOf = (rounds: readonly RoundFigures[], figure: 'rps' | 'p50Ms' | 'p99Ms' | 'cpuPercent' | 'cpuUsPerRequest') =>
  median(rounds.map((round) => round[figure]));

function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

const PAIR_HEADER = ['storage', 'server', 'req/s', 'p50 ms', 'p99 ms', 'CPU %', 'CPU µs/req', 'RSS MiB'];

function serverRow(storage: string, who: string, rounds: readonly RoundFigures[]): string[] {
  const failures = rounds.reduce((sum, round) => sum + round.failures, 0);
  return [
    storage,
    who + (failures ? ` ⚠ ${failures} failed requests` : ''),
    int(medianOf(rounds, 'rps')),
    ms(medianOf(rounds, 'p50Ms')),
    ms(medianOf(rounds, 'p99Ms')),
    pct(medianOf(rounds, 'cpuPercent')),
    int(medianOf(rounds, 'cpuUsPerRequest')),
    mib(Math.max(...rounds.map((round) => round.rssBytes))),
  ];
}

/** Both servers' rows and the ratio row of one result; the ratio marked against its targets, when it has some. */
function pairRows(result: PairedResult, names: readonly [string, string], minRps: number | undefined, p99Targeted: boolean): string[][] {
  const rps = medianRatio(result, 'rps');
  const p99 = medianRatio(result, 'p99Ms');
  const verdict = (minRps === undefined ? '' : ` ${mark(rps >= minRps)}`) + (p99Targeted ? ` / ${mark(p99 <= MAX_P99_RATIO)}` : '');
  return [
    serverRow(result.storage, names[0], result.service),
    serverRow(result.storage, names[1], result.baseline),
    [
      result.storage,
      `**ratio** (median of rounds)${verdict}`,
      `**${ratio(rps)}**`,
      ratio(medianRatio(result, 'p50Ms')),
      `**${ratio(p99)}**`,
      '',
      ratio(medianRatio(result, 'cpuUsPerRequest')),
      '',
    ],
  ];
}

function pairedSection(results: readonly PairedResult[]): string {
  const byScenario = new Map<string, PairedResult[]>();
  for (const result of results) byScenario.set(result.scenario, [...(byScenario.get(result.scenario) ?? []), result]);
  const parts: string[] = [];
  for (const [scenario, group] of byScenario) {
    const hasTarget = THROUGHPUT_TARGET_SCENARIOS.includes(scenario);
    parts.push(`### ${scenario}\n\n${group[0]!.description}.${hasTarget ? '' : ' No target: for information.'}`);
    const rows = group.flatMap((result) =>
      pairRows(
        result,
        ['service', 'lean baseline'],
        targeted(result, THROUGHPUT_TARGET_SCENARIOS) ? MIN_THROUGHPUT_RATIO : undefined,
        targeted(result, P99_TARGET_SCENARIOS),
      ),
    );
    parts.push(table(PAIR_HEADER, rows));
  }
  return parts.join('\n\n');
}

function roundsSection(results: readonly PairedResult[]): string {
  const rows: string[][] = [];
  for (const result of results) {
    const phases = [
      { label: 'warm-up', service: result.warmup.service, baseline: result.warmup.baseline },
      ...result.service.map((service, index) => ({ label: `round ${index + 1}`, service, baseline: result.baseline[index]! })),
    ];
    for (const { label, service, baseline } of phases) {
      rows.push([
        result.scenario,
        result.storage,
        label,
        `${int(service.rps)} / ${int(baseline.rps)}`,
        ratio(service.rps / baseline.rps),
        `${ms(service.p99Ms)} / ${ms(baseline.p99Ms)}`,
        `${pct(service.cpuPercent)} / ${pct(baseline.cpuPercent)}`,
        `${int(service.requests)} / ${int(baseline.requests)}`,
        service.failures || baseline.failures ? `${service.failures} / ${baseline.failures}` : '0',
      ]);
    }
  }
  return table(['scenario', 'storage', 'phase', 'req/s service / baseline', 'ratio', 'p99 ms', 'CPU %', 'requests', 'failed'], rows);
}

/** Tracing on (exporting to a local OTLP sink) against off. */
function tracingSection(results: BenchResults, sampler: BenchOptions['tracingSampler']): string {
  const tracing = results.tracing;
  if (!tracing?.pairs.length) return '';
  const recorded = sampler === undefined ? 'every request, including each storage call, is a span' : `sampled with ${describeSampler(sampler)}`;
  const min = tracingMinRatio(tracing.sampled);
  const rows = tracing.pairs.flatMap((result) => pairRows(result, ['tracing on', 'tracing off'], min, false).map((row) => [result.scenario, ...row]));
  return `## Tracing cost

The service with tracing on (\`OTEL_EXPORTER_OTLP_ENDPOINT\` pointing at a local OTLP/HTTP sink that accepts and drops the spans; ${recorded}) against the same service without any \`OTEL_*\` variable, in interleaved rounds as above. Target: req/s with tracing ≥ ${min}x without.

${table(['scenario', ...PAIR_HEADER], rows)}`;
}

/** The fetch handler against the node listener, same store: report only. */
function fetchHandlerSection(results: BenchResults): string {
  if (!results.fetchHandler?.length) return '';
  const rows = results.fetchHandler.flatMap((result) =>
    pairRows(result, ['fetch handler', 'node listener'], undefined, false).map((row) => [result.scenario, ...row]),
  );
  return `## Fetch handler

The API through \`createFetchHandler\` served on node:http by \`@hono/node-server\` against the node listener (\`createPlantServer\`), each a store in a process of its own (\`bench/lib/front-server.ts\`), logging off, in interleaved rounds as above. No target: for information.

${table(['scenario', ...PAIR_HEADER], rows)}`;
}

function webhookSection(hooks: WebhookResult | undefined): string {
  if (!hooks) return '';
  const { backlog, latency, burst } = hooks;
  const where =
    hooks.instances > 1
      ? `${hooks.instances} service instances on one PostgreSQL schema`
      : `service on ${hooks.storage === 'sqlite' ? 'SQLite' : 'PostgreSQL'}`;
  return `## Webhook dispatch (${where}, one subscription, loopback receiver answering 200)

${table(
  ['measure', 'value'],
  [
    [
      `backlog: ${int(backlog.deliveries)} deliveries queued before start, first ready line → last received`,
      `**${int(backlog.perSecond)} deliveries/s** (${backlog.seconds.toFixed(2)} s; CPU ${backlog.cpuPercent.map((cpu) => `${pct(cpu)} %`).join(', ')})`,
    ],
    [
      `commit → first attempt, ${int(latency.creates)} creates paced at ${latency.ratePerSecond}/s (POST written → webhook received)`,
      `**p50 ${ms(latency.p50Ms)} ms**, p99 ${ms(latency.p99Ms)} ms, max ${ms(latency.maxMs)} ms (the create itself: p50 ${ms(latency.createP50Ms)} ms)`,
    ],
    [
      `burst: ${int(burst.plants)} creates while dispatching`,
      `creates ${int(burst.createPerSecond)}/s; first POST → last delivery ${burst.endToEndSeconds.toFixed(2)} s = ${int(burst.endToEndPerSecond)} deliveries/s`,
    ],
    ['distinct webhook-ids received / creates answered', `${int(hooks.received)} / ${int(hooks.expected)}`],
    ['concurrent duplicate attempts / repeated webhook-ids in all', `**${int(hooks.concurrentDuplicates)}** / ${int(hooks.duplicates)}`],
    ['signatures checked with `standardwebhooks` verify()', `${hooks.signatures.valid} of ${hooks.signatures.checked} valid`],
  ],
)}`;
}

function bigListSection(big: BigListResult | undefined, storage: string): string {
  if (!big) return '';
  return `## Unlimited \`GET /plants\` over ${int(big.plants)} plants (service on ${storage})

${table(
  ['measure', 'value'],
  [
    ['plants received / bytes', `${int(big.received)} / ${mib(big.bytes)} MiB`],
    ['duration', `${big.seconds.toFixed(2)} s (${int(big.received / big.seconds)} plants/s)`],
    ['RSS before → peak (sampled every 50 ms)', `${mib(big.rssBeforeBytes)} → ${mib(big.peakRssBytes)} MiB (${big.rssSamples} samples)`],
    ['**peak RSS growth**', `**${mib(big.peakGrowthBytes)} MiB**`],
    [
      `small requests meanwhile (GET /plants/{id}, 4 connections, 200/s)`,
      `${int(big.small.requests)} requests, p50 ${ms(big.small.p50Ms)} ms, **p99 ${ms(big.small.p99Ms)} ms**, max ${ms(big.small.maxMs)} ms, ${big.small.failures} failed`,
    ],
    ['seeding (bulk INSERT, not measured)', `${big.seedSeconds.toFixed(1)} s`],
  ],
)}`;
}

function steadyStateSection(steady: SteadyStateResult | undefined): string {
  if (!steady) return '';
  const what = steady.storage === 'sqlite' ? 'database file + WAL' : "the schema's tables with indexes and TOAST (pg_total_relation_size)";
  const rows = steady.samples.map((sample) => [String(sample.atS), mib(sample.bytes), int(sample.pruned)]);
  return `## Steady state on ${steady.storage === 'sqlite' ? 'SQLite' : 'PostgreSQL'}: ${steady.seconds} s at ${steady.ratePerSecond} creates/s, webhook retention ${steady.retentionS} s

Creates paced at ${steady.ratePerSecond}/s, each delivered to a loopback receiver answering 200; every plant is deleted ${steady.keepPlantsS} s after its creation, so the plant table keeps its size and what is measured is whether the outbox levels off. Size: ${what}.

${table(
  ['measure', 'value'],
  [
    ['creates / failed requests / deliveries received', `${int(steady.creates)} / ${int(steady.failures)} / ${int(steady.delivered)}`],
    ['**size at the middle → at the end**', `**${mib(steady.midBytes)} → ${mib(steady.finalBytes)} MiB (${steady.growthPercent.toFixed(1)} %)**`],
    [`create p99, requests started while no prune batch ran (${int(steady.requestsIdle)} requests)`, `${ms(steady.p99IdleMs)} ms`],
    [
      `create p99, requests started in a ${'250 ms'} window in which the pruned counter moved (${int(steady.requestsPruning)} requests)`,
      `${ms(steady.p99PruningMs)} ms`,
    ],
    ...(steady.serverAutovacuum === undefined ? [] : [['server `autovacuum` setting', steady.serverAutovacuum]]),
  ],
)}

${table(['s', 'size MiB', 'pruned so far'], rows)}`;
}

function startupSection(results: BenchResults): string {
  if (!results.startup?.length) return '';
  const rows = results.startup.map((start) => [
    start.contestant === 'service' ? 'service' : 'lean baseline',
    start.storage,
    `**${int(start.medianReadyMs)}**`,
    start.readyMs.map(int).join(', '),
    `**${mib(start.medianIdleRssBytes)}**`,
  ]);
  return `## Start-up and idle memory

Spawn of \`node\` → ready line on stdout (includes Node's own boot; SQLite on a fresh file, so its schema is created), and RSS one second after ready with nothing sent. Medians of ${results.startup[0]!.readyMs.length} runs.

${table(['server', 'storage', 'start → ready ms', 'runs ms', 'idle RSS MiB'], rows)}`;
}

/** The HTTP and tracing ratios in one line each; the other scenarios' figures are in the Targets table and their own sections. */
function summaryLines(results: BenchResults): string[] {
  const lines: string[] = [];
  for (const result of results.paired) {
    lines.push(
      `${result.scenario} (${result.storage}): ${int(medianOf(result.service, 'rps'))} req/s, p99 ${ms(medianOf(result.service, 'p99Ms'))} ms — ` +
        `${ratio(medianRatio(result, 'rps'))} the lean baseline's req/s, ${ratio(medianRatio(result, 'p99Ms'))} its p99, ` +
        `${ratio(medianRatio(result, 'cpuUsPerRequest'))} its CPU time per request`,
    );
  }
  for (const result of results.fetchHandler ?? []) {
    lines.push(
      `${result.scenario} (${result.storage}): fetch handler ${int(medianOf(result.service, 'rps'))} req/s, node listener ${int(medianOf(result.baseline, 'rps'))} req/s — ` +
        `${ratio(medianRatio(result, 'rps'))} req/s, ${ratio(medianRatio(result, 'cpuUsPerRequest'))} CPU time per request`,
    );
  }
  for (const result of results.tracing?.pairs ?? []) {
    lines.push(
      `${result.scenario} (${result.storage}): tracing on ${int(medianOf(result.service, 'rps'))} req/s, off ${int(medianOf(result.baseline, 'rps'))} req/s — ` +
        `${ratio(medianRatio(result, 'rps'))} req/s, ${ratio(medianRatio(result, 'cpuUsPerRequest'))} CPU time per request`,
    );
  }
  return lines;
}

function machineSection(machine: MachineInfo, options: BenchOptions): string {
  const started = {
    dist: 'built CLI (`packages/server/dist/cli.js serve`)',
    source: 'TypeScript source through tsx',
    baseline: 'a baseline (harness self-test!)',
  }[options.serviceFrom];
  return `## Machine and versions\n\n${table(
    ['', ''],
    [
      ['CPU', `${machine.cpuModel} × ${machine.cpuCount}`],
      ['memory', `${(machine.memoryBytes / 2 ** 30).toFixed(1)} GiB`],
      ['OS', machine.os],
      ['load average at start (1, 5, 15 min)', machine.loadAverage.map((value) => value.toFixed(2)).join(', ')],
      ['Node.js', machine.node],
      ...Object.entries(machine.versions),
      ['commit', machine.commit],
      ['CPU pinning', describePinning(machine.cpuPinning)],
      ['service started from', started],
    ],
  )}`;
}

function methodNotes(options: BenchOptions, machine: MachineInfo): string {
  const pinning = machine.cpuPinning;
  return [
    pinning.pinned
      ? `- CPUs: every server process starts as \`taskset -c ${pinning.serverCpu} node …\` (its affinity checked once it is ready); the harness (autocannon, the webhook receiver, the OTLP sink) runs on CPU ${pinning.harnessCpu}. PostgreSQL's own processes are not pinned.`
      : `- CPUs: ${describePinning(pinning)}: servers, their helper threads and the harness share the CPUs, so req/s is not comparable with a pinned run.`,
    `- Load: autocannon (one client thread) over 127.0.0.1, ${options.connections} keep-alive connections. Each scenario: a ${options.warmupS} s warm-up of each server, then ${options.rounds} rounds of ${options.roundS} s interleaved service, baseline, service, baseline… (delete: ${int(options.deleteAmount)} requests per round). Ratios are the median of the per-round ratios service / baseline; latencies are every response's exact time.`,
    '- Baselines (`bench/baselines/lean-*`): the least a hand-written `node:http` server does for the same answers. Bearer token → tenant by a `Map` lookup, `JSON.parse` and hand-written id/name/tag checks; create: the plant and one outbox row per subscription in one transaction (one statement on PostgreSQL); list and get: one prepared statement whose JSON the database builds (exact 64-bit ids), Link header included; delete: one DELETE, 204 or a JSON 404. No request ids, content-type or UTF-8 checks, metrics or tag filters; with logging on, one JSON line per request.',
    '- Both run on bare `node` (baselines transpiled first), `NODE_ENV=production`, the same flags; stdout is drained by the harness. Logging off is `--log-level warn`. Reads, creates and deletes each use their own tenant.',
    '- Data: list and get over 10,000 seeded plants (half with a tag), random cursors and ids from a seeded generator, the same sequence for both servers. `create` has one subscription whose receiver never answers, so both write the plant and its outbox row but no delivery is measured; `create-webhooks` lets the service deliver to a receiver answering 200 (the baseline does not): the full cost, for information.',
    '- Process figures come from /proc/<pid>/status (VmRSS) and /proc/<pid>/stat (utime + stime) of the server processes only.',
  ].join('\n');
}

/** The markdown report: header, targets, every figure, method. */
export function renderReport(input: ReportInput): string {
  const { machine, options, results } = input;
  const checks = checkTargets(results);
  const passed = checks.filter((check) => check.pass).length;
  const date = input.startedAt
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, ' UTC');
  const every = [...results.paired, ...(results.tracing?.pairs ?? []), ...(results.fetchHandler ?? [])];
  const sections = [
    `# Plant Store benchmark — ${date}, Node.js ${machine.node}`,
    `${options.quick ? '**Quick run** (short rounds: a smoke test, noisy; not for comparison). ' : ''}Command: \`${input.command}\`. Took ${Math.round(input.seconds)} s. Targets met: **${passed} of ${checks.length}**.`,
    `## Summary\n\n${summaryLines(results)
      .map((line) => `- ${line}`)
      .join('\n')}`,
    input.skipped?.length ? `## Scenarios skipped\n\n${input.skipped.map((line) => `- ${line}`).join('\n')}` : '',
    input.errors.length ? `## Scenarios that failed to run\n\n${input.errors.map((error) => `- ${error}`).join('\n')}` : '',
    `## Targets\n\n${table(
      ['target', 'measured', 'result'],
      checks.map((check) => [check.target, check.measured, check.pass ? '✅ pass' : '❌ miss']),
    )}`,
    machineSection(machine, options),
    `## Method\n\n${methodNotes(options, machine)}`,
    results.paired.length
      ? `## HTTP scenarios\n\nMedians over the measured rounds. CPU % is the server's user + system time over the round (100 = one core); CPU µs/req is that time per answered request, the steadier measure on a shared machine; RSS is at the end of the rounds.\n\n${pairedSection(results.paired)}`
      : '',
    tracingSection(results, options.tracingSampler),
    fetchHandlerSection(results),
    webhookSection(results.webhooks),
    webhookSection(results.pgWebhooks),
    orderedDeliverySection(results.orderedDelivery),
    orderedDeliverySection(results.pgOrderedDelivery),
    endpointScaleSection(results.endpointScale),
    bigListSection(results.bigList, 'SQLite'),
    bigListSection(results.pgBigList, 'PostgreSQL'),
    pgHostPoolSection(results.pgHostPool),
    filteredFanOutSection(results.filteredFanOut),
    filteredFanOutSection(results.pgFilteredFanOut),
    steadyStateSection(results.steadyState),
    steadyStateSection(results.pgSteadyState),
    startupSection(results),
    every.length
      ? `## Every round\n\nService / baseline (tracing-*: on / off; fetch-handler-*: fetch handler / node listener). The warm-up is not used for ratios.\n\n${roundsSection(every)}`
      : '',
  ];
  return `${sections.filter(Boolean).join('\n\n')}\n`;
}
