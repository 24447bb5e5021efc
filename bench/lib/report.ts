import type { BigListResult } from '../scenarios/big-list-scenario.js';
import type { SteadyStateResult } from '../scenarios/steady-state-scenario.js';
import { tracingSamplerEnv, type BenchOptions } from './bench-options.js';
import { describePinning, type CpuPinning } from './cpu-pinning.js';
import type { MachineInfo } from './machine-info.js';
import type { PairedResult, RoundFigures } from './paired-rounds.js';
import { median } from './stats.js';
import {
  checkTargets,
  medianLeanRatio,
  medianRatio,
  LEAN_TARGET_SCENARIOS,
  RATIO_TARGET_SCENARIOS,
  MAX_P99_RATIO,
  METRICS_MIN_THROUGHPUT_RATIO,
  TRACING_MIN_THROUGHPUT_RATIO,
  MIN_THROUGHPUT_RATIO,
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
const mark = (pass: boolean) => (pass ? '✅ pass' : '❌ miss');

function medianOf(rounds: readonly RoundFigures[], figure: keyof RoundFigures): number {
  return median(rounds.map((round) => round[figure] as number));
}

function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

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

function pairedSection(results: readonly PairedResult[]): string {
  const byScenario = new Map<string, PairedResult[]>();
  for (const result of results) byScenario.set(result.scenario, [...(byScenario.get(result.scenario) ?? []), result]);
  const parts: string[] = [];
  for (const [scenario, group] of byScenario) {
    const targeted = RATIO_TARGET_SCENARIOS.includes(scenario);
    parts.push(`### ${scenario}\n\n${group[0]!.description}.${targeted ? '' : ' No target: for information.'}`);
    const rows: string[][] = [];
    for (const result of group) {
      rows.push(serverRow(result.storage, 'service', result.service));
      rows.push(serverRow(result.storage, 'raw baseline', result.baseline));
      const rps = medianRatio(result, 'rps');
      const p99 = medianRatio(result, 'p99Ms');
      const verdict = targeted ? ` ${rps >= MIN_THROUGHPUT_RATIO ? '✅' : '❌'} / ${p99 <= MAX_P99_RATIO ? '✅' : '❌'}` : '';
      rows.push([
        result.storage,
        `**ratio** (median of rounds)${verdict}`,
        `**${ratio(rps)}**`,
        ratio(medianRatio(result, 'p50Ms')),
        `**${ratio(p99)}**`,
        '',
        ratio(medianRatio(result, 'cpuUsPerRequest')),
        '',
      ]);
      if (result.lean) rows.push(...leanRows(result));
    }
    parts.push(table(['storage', 'server', 'req/s', 'p50 ms', 'p99 ms', 'CPU %', 'CPU µs/req', 'RSS MiB'], rows));
  }
  return parts.join('\n\n');
}

/** The lean baseline's row and the service's ratio to it. */
function leanRows(result: PairedResult): string[][] {
  const rps = medianLeanRatio(result, 'rps');
  const verdict = LEAN_TARGET_SCENARIOS.includes(result.scenario) ? ` ${rps >= MIN_THROUGHPUT_RATIO ? '✅' : '❌'}` : '';
  return [
    serverRow(result.storage, 'lean baseline', result.lean!.rounds),
    [
      result.storage,
      `**ratio to lean** (median of rounds)${verdict}`,
      `**${ratio(rps)}**`,
      ratio(medianLeanRatio(result, 'p50Ms')),
      ratio(medianLeanRatio(result, 'p99Ms')),
      '',
      ratio(medianLeanRatio(result, 'cpuUsPerRequest')),
      '',
    ],
  ];
}

function roundsSection(results: readonly PairedResult[]): string {
  const rows: string[][] = [];
  for (const result of results) {
    const phases = [
      { label: 'warm-up', service: result.warmup.service, baseline: result.warmup.baseline },
      ...result.service.map((service, index) => ({ label: `round ${index + 1}`, service, baseline: result.baseline[index]! })),
    ];
    const lean = [result.lean?.warmup, ...(result.lean?.rounds ?? [])];
    for (const [index, { label, service, baseline }] of phases.entries()) {
      const leanRound = lean[index];
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
        leanRound ? `${int(leanRound.rps)} (${ratio(service.rps / leanRound.rps)})` : '–',
      ]);
    }
  }
  return table(
    ['scenario', 'storage', 'phase', 'req/s service / baseline', 'ratio', 'p99 ms', 'CPU %', 'requests', 'failed', 'lean req/s (ratio)'],
    rows,
  );
}

/** Metrics on against off: the same columns as the HTTP scenarios, and the ratio with its target. */
function metricsSection(results: BenchResults): string {
  return onOffSection(results.metrics ?? [], 'metrics', METRICS_MIN_THROUGHPUT_RATIO, `## Metrics cost

The service with metrics on (\`GET /metrics\` scraped every second during its rounds) against the same service with \`PLANT_STORE_METRICS=off\`, in interleaved rounds as above. Target: req/s with metrics ≥ ${METRICS_MIN_THROUGHPUT_RATIO}x without. On a shared machine the req/s ratio moves from round to round; CPU µs/req is the steadier measure of what metrics cost.`);
}

/** Tracing on (exporting to a local OTLP sink) against off, as the metrics section. */
function tracingSection(results: BenchResults, sampler: BenchOptions['tracingSampler']): string {
  const recorded =
    sampler === undefined
      ? 'every request, including each storage call, is a span'
      : `sampled with ${Object.entries(tracingSamplerEnv(sampler))
          .map(([name, value]) => `\`${name}=${value}\``)
          .join(' and ')}`;
  return onOffSection(results.tracing ?? [], 'tracing', TRACING_MIN_THROUGHPUT_RATIO, `## Tracing cost

The service with tracing on (\`OTEL_EXPORTER_OTLP_ENDPOINT\` pointing at a local OTLP/HTTP sink that accepts and drops the spans; ${recorded}) against the same service without any \`OTEL_*\` variable (no SDK loaded), in interleaved rounds as above. Target: req/s with tracing ≥ ${TRACING_MIN_THROUGHPUT_RATIO}x without. Tracing off against the service without this feature is the HTTP scenarios' service row.`);
}

/** Spinning before each response against not: what a few microseconds more per request cost here (no target). */
function busyWaitSection(results: BenchResults, micros: number): string {
  return onOffSection(results.busyWait ?? [], 'busy-wait', undefined, `## Busy-wait reference

The service spinning ${micros} µs of wall-clock time before each response (\`node --import bench/lib/busy-wait-preload.mjs\`, no tracing) against the same service as it is, in interleaved rounds as above. Its only extra work is the spin, so the ratio says what ${micros} µs more CPU per request costs in req/s on this machine with this load generator: the scale against which to read the tracing ratio. No target.`);
}

/** One row per server and a ratio row per scenario of a feature measured on against off; the ratio marked against `minRatio` when there is one. */
function onOffSection(results: readonly PairedResult[], feature: string, minRatio: number | undefined, heading: string): string {
  if (results.length === 0) return '';
  const rows: string[][] = [];
  for (const result of results) {
    rows.push([result.scenario, ...serverRow(result.storage, `${feature} on`, result.service)]);
    rows.push([result.scenario, ...serverRow(result.storage, `${feature} off`, result.baseline)]);
    const rps = medianRatio(result, 'rps');
    rows.push([
      result.scenario,
      result.storage,
      `**ratio** (median of rounds)${minRatio === undefined ? '' : rps >= minRatio ? ' ✅' : ' ❌'}`,
      `**${ratio(rps)}**`,
      ratio(medianRatio(result, 'p50Ms')),
      ratio(medianRatio(result, 'p99Ms')),
      '',
      ratio(medianRatio(result, 'cpuUsPerRequest')),
      '',
    ]);
  }
  return `${heading}

${table(['scenario', 'storage', 'server', 'req/s', 'p50 ms', 'p99 ms', 'CPU %', 'CPU µs/req', 'RSS MiB'], rows)}`;
}

function webhookSection(results: BenchResults): string {
  const hooks = results.webhooks;
  if (!hooks) return '';
  const { backlog, latency, burst } = hooks;
  return `## Webhook dispatch (service on SQLite, one subscription, loopback receiver answering 200)

${table(
  ['measure', 'value'],
  [
    [`backlog: ${int(backlog.deliveries)} deliveries queued before start, ready line → last received`, `**${int(backlog.perSecond)} deliveries/s** (${backlog.seconds.toFixed(2)} s, service CPU ${pct(backlog.cpuPercent)} %)`],
    [`commit → first attempt, ${int(latency.creates)} creates paced at ${latency.ratePerSecond}/s (POST written → webhook received)`, `**p50 ${ms(latency.clientP50Ms)} ms**, p99 ${ms(latency.clientP99Ms)} ms, max ${ms(latency.clientMaxMs)} ms`],
    ['  the create requests themselves (included above)', `p50 ${ms(latency.createP50Ms)} ms`],
    ['  as recorded by the service (attempt start − outbox created_at, whole ms)', latency.recordedP50Ms === undefined ? 'not available' : `p50 ${latency.recordedP50Ms} ms, p99 ${latency.recordedP99Ms} ms`],
    [`burst: ${int(burst.plants)} creates on 32 connections while dispatching`, `creates ${int(burst.createPerSecond)}/s; first POST → last delivery ${burst.endToEndSeconds.toFixed(2)} s = ${int(burst.endToEndPerSecond)} deliveries/s`],
    ['duplicate deliveries (same webhook-id twice)', int(hooks.duplicates)],
    ['signatures checked with `standardwebhooks` verify()', `${hooks.signatures.valid} of ${hooks.signatures.checked} valid`],
  ],
)}`;
}

function pgWebhookSection(results: BenchResults): string {
  const hooks = results.pgWebhooks;
  if (!hooks) return '';
  const { backlog, burst } = hooks;
  return `## Webhook dispatch, ${hooks.instances} service instances on one PostgreSQL schema (one subscription, loopback receiver answering 200)

${table(
  ['measure', 'value'],
  [
    [`backlog: ${int(backlog.deliveries)} deliveries queued before start, first ready line → last received`, `**${int(backlog.perSecond)} deliveries/s** (${backlog.seconds.toFixed(2)} s; CPU per instance ${backlog.cpuPercent.map((cpu) => `${pct(cpu)} %`).join(', ')})`],
    [`burst: ${int(burst.plants)} creates split over the instances while both dispatch`, `creates ${int(burst.createPerSecond)}/s; first POST → last delivery ${burst.endToEndSeconds.toFixed(2)} s = ${int(burst.endToEndPerSecond)} deliveries/s`],
    ['distinct webhook-ids received / expected', `${int(hooks.received)} / ${int(hooks.expected)}`],
    ['**concurrent duplicate attempts** (a second request for a webhook-id while one is in flight)', `**${int(hooks.concurrentDuplicates)}**`],
    ['repeated webhook-ids in all (any second request)', int(hooks.duplicates)],
    ['outbox afterwards: not delivered / attempt rows beyond one per delivery', `${int(hooks.outbox.notDelivered)} / ${int(hooks.outbox.extraAttempts)}`],
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
    [`small requests meanwhile (GET /plants/{id}, 4 connections, 200/s)`, `${int(big.small.requests)} requests, p50 ${ms(big.small.p50Ms)} ms, **p99 ${ms(big.small.p99Ms)} ms**, max ${ms(big.small.maxMs)} ms, ${big.small.failures} failed`],
    ['seeding (bulk INSERT, not measured)', `${big.seedSeconds.toFixed(1)} s`],
  ],
)}`;
}

function steadyStateSection(steady: SteadyStateResult | undefined): string {
  if (!steady) return '';
  const what = steady.storage === 'sqlite' ? 'database file + WAL' : "the schema's tables with indexes and TOAST (pg_total_relation_size)";
  const rows = steady.samples.map((sample) => [
    String(sample.atS),
    mib(sample.bytes),
    sample.walBytes === undefined ? '' : mib(sample.walBytes),
    int(sample.pruned),
  ]);
  return `## Steady state on ${steady.storage === 'sqlite' ? 'SQLite' : 'PostgreSQL'}: ${steady.seconds} s at ${steady.ratePerSecond} creates/s, webhook retention ${steady.retentionS} s

Creates paced at ${steady.ratePerSecond}/s, each delivered to a loopback receiver answering 200; every plant is deleted ${steady.keepPlantsS} s after its creation, so the plant table keeps its size and what is measured is whether the outbox levels off. Size: ${what}.

${table(
  ['measure', 'value'],
  [
    ['creates / failed requests / deliveries received', `${int(steady.creates)} / ${int(steady.failures)} / ${int(steady.delivered)}`],
    ['**size at the middle → at the end**', `**${mib(steady.midBytes)} → ${mib(steady.finalBytes)} MiB (${steady.growthPercent.toFixed(1)} %)**`],
    [`create p99, requests started while no prune batch ran (${int(steady.requestsIdle)} requests)`, `${ms(steady.p99IdleMs)} ms`],
    [`create p99, requests started in a ${'250 ms'} window in which the pruned counter moved (${int(steady.requestsPruning)} requests)`, `${ms(steady.p99PruningMs)} ms`],
    ...steadyStatePostgresRows(steady),
  ],
)}

${table(['s', 'size MiB', 'WAL MiB', 'pruned so far'], rows)}`;
}

/** PostgreSQL: the server's autovacuum setting, and each table's size at the middle and at the end. */
function steadyStatePostgresRows(steady: SteadyStateResult): string[][] {
  if (steady.serverAutovacuum === undefined) return [];
  const tables = (steady.tableBytes ?? []).map((table) => `${table.name} ${mib(table.mid)} → ${mib(table.final)}`);
  return [
    ['server `autovacuum` setting', steady.serverAutovacuum],
    ['by table, MiB at the middle → at the end', tables.join('; ')],
  ];
}

function startupSection(results: BenchResults): string {
  if (!results.startup?.length) return '';
  const rows = results.startup.map((start) => [
    start.contestant === 'service' ? 'service' : 'raw baseline',
    start.storage,
    `**${int(start.medianReadyMs)}**`,
    start.readyMs.map(int).join(', '),
    `**${mib(start.medianIdleRssBytes)}**`,
  ]);
  return `## Start-up and idle memory

Spawn of \`node\` → ready line on stdout (includes Node's own boot; SQLite on a fresh file, so its schema is created), and RSS one second after ready with nothing sent. Medians of ${results.startup[0]!.readyMs.length} runs.

${table(['server', 'storage', 'start → ready ms', 'runs ms', 'idle RSS MiB'], rows)}`;
}

function summaryLines(results: BenchResults): string[] {
  const lines: string[] = [];
  for (const result of results.paired) {
    lines.push(
      `${result.scenario} (${result.storage}): ${int(medianOf(result.service, 'rps'))} req/s, p99 ${ms(medianOf(result.service, 'p99Ms'))} ms — ` +
        `${ratio(medianRatio(result, 'rps'))} the raw baseline's req/s, ${ratio(medianRatio(result, 'p99Ms'))} its p99, ` +
        `${ratio(medianRatio(result, 'cpuUsPerRequest'))} its CPU time per request` +
        (result.lean ? `; ${ratio(medianLeanRatio(result, 'rps'))} the lean baseline's req/s, ${ratio(medianLeanRatio(result, 'cpuUsPerRequest'))} its CPU time per request` : ''),
    );
  }
  for (const [feature, list] of onOffFeatures(results)) {
    for (const result of list) {
      lines.push(
        `${result.scenario} (${result.storage}): ${feature} on ${int(medianOf(result.service, 'rps'))} req/s, off ${int(medianOf(result.baseline, 'rps'))} req/s — ` +
          `${ratio(medianRatio(result, 'rps'))} req/s, ${ratio(medianRatio(result, 'cpuUsPerRequest'))} CPU time per request`,
      );
    }
  }
  if (results.webhooks) {
    lines.push(
      `webhooks: ${int(results.webhooks.backlog.perSecond)} deliveries/s; commit → first attempt p50 ${ms(results.webhooks.latency.clientP50Ms)} ms, p99 ${ms(results.webhooks.latency.clientP99Ms)} ms`,
    );
  }
  if (results.pgWebhooks) {
    const hooks = results.pgWebhooks;
    lines.push(
      `webhooks, ${hooks.instances} instances on PostgreSQL: ${int(hooks.backlog.perSecond)} deliveries/s; ${int(hooks.concurrentDuplicates)} concurrent duplicate attempts (${int(hooks.duplicates)} repeated ids in all)`,
    );
  }
  for (const [big, where] of [
    [results.bigList, ''],
    [results.pgBigList, ' (postgres)'],
  ] as const) {
    if (!big) continue;
    lines.push(
      `unlimited list of ${int(big.plants)} plants${where}: ${big.seconds.toFixed(1)} s, peak RSS growth ${mib(big.peakGrowthBytes)} MiB, small requests p99 ${ms(big.small.p99Ms)} ms meanwhile`,
    );
  }
  for (const start of results.startup ?? []) {
    if (start.contestant === 'service') {
      lines.push(`start to ready (${start.storage}): ${int(start.medianReadyMs)} ms; idle RSS ${mib(start.medianIdleRssBytes)} MiB`);
    }
  }
  return lines;
}

function machineSection(machine: MachineInfo, options: BenchOptions): string {
  const started = options.serviceFrom === 'dist' ? 'built CLI (`packages/server/dist/cli.js serve`)' : options.serviceFrom === 'source' ? 'TypeScript source through tsx' : 'a baseline (harness self-test!)';
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

/** The markdown report: header, targets, every figure, method and fairness notes. */
/** The features measured on against off, each with its results (none when it did not run). */
function onOffFeatures(results: BenchResults): (readonly [string, readonly PairedResult[]])[] {
  return [
    ['metrics', results.metrics ?? []],
    ['tracing', results.tracing ?? []],
    ['busy-wait', results.busyWait ?? []],
  ];
}

export function renderReport(input: ReportInput): string {
  const { machine, options, results } = input;
  const onOff = onOffFeatures(results).flatMap(([, list]) => list);
  const checks = checkTargets(results);
  const passed = checks.filter((check) => check.pass).length;
  const date = input.startedAt.toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
  const sections = [
    `# Plant Store benchmark — ${date}, Node.js ${machine.node}`,
    `${options.quick ? '**Quick run** (short rounds: a smoke test, noisy; not for comparison). ' : ''}Command: \`${input.command}\`. Took ${Math.round(input.seconds)} s. Targets met: **${passed} of ${checks.length}**.`,
    `## Summary\n\n${summaryLines(results).map((line) => `- ${line}`).join('\n')}`,
    input.skipped?.length ? `## Scenarios skipped\n\n${input.skipped.map((line) => `- ${line}`).join('\n')}` : '',
    input.errors.length ? `## Scenarios that failed to run\n\n${input.errors.map((error) => `- ${error}`).join('\n')}` : '',
    `## Targets\n\n${table(['target', 'measured', 'result'], checks.map((check) => [check.target, check.measured, mark(check.pass)]))}`,
    machineSection(machine, options),
    `## Method\n\n${methodNotes(options, machine)}`,
    results.paired.length ? `## HTTP scenarios\n\nMedians over the measured rounds. CPU % is the server process's user + system time over the round (100 = one core), from /proc/<pid>/stat; CPU µs/req is that time per answered request; RSS is VmRSS at the end of the rounds. On a machine shared with other work the req/s ratio moves from round to round (see Every round); CPU µs/req is the steadier measure of the service's own overhead.\n\n${pairedSection(results.paired)}` : '',
    metricsSection(results),
    tracingSection(results, options.tracingSampler),
    busyWaitSection(results, options.busyWaitUs),
    webhookSection(results),
    pgWebhookSection(results),
    bigListSection(results.bigList, 'SQLite'),
    bigListSection(results.pgBigList, 'PostgreSQL'),
    steadyStateSection(results.steadyState),
    steadyStateSection(results.pgSteadyState),
    startupSection(results),
    results.paired.length || onOff.length
      ? `## Every round\n\nService / baseline (for metrics-*, tracing-* and busy-wait-*: on / off). The warm-up is not used for ratios.\n\n${roundsSection([...results.paired, ...onOff])}`
      : '',
  ];
  return `${sections.filter(Boolean).join('\n\n')}\n`;
}

/** Where the processes ran: the independent benchmark pins, and unpinned figures differ from its. */
function pinningNote(pinning: CpuPinning, cpuCount: number): string {
  if (!pinning.pinned) {
    return `- CPUs: ${describePinning(pinning)}. The servers, their helper threads and the harness share all ${cpuCount} CPUs as the scheduler places them, so a server's background threads (SQLite's checkpoint thread, V8's GC helpers) can run beside the load generator: req/s is not comparable with a pinned run.`;
  }
  const { serverCpu, harnessCpu } = pinning;
  return `- CPUs: ${describePinning(pinning)} (\`--pin on\`, the default), as the independent benchmark of this service runs. Every server process (service and baselines alike, in every scenario) starts as \`taskset -c ${serverCpu} node …\`: taskset sets the affinity and execs node in its own place, so the measured PID is node's and every thread node starts (SQLite's background checkpoint thread, V8's GC helpers, libuv's pool) shares CPU ${serverCpu} from the first instruction; each server's affinity is checked in /proc/<pid>/status once it is ready. The harness (autocannon, the webhook receiver, the OTLP sink) moves all its threads to CPU ${harnessCpu} at start (\`taskset -a -cp ${harnessCpu}\`). PostgreSQL's own processes are not pinned. Start-up times include taskset's own exec (a few milliseconds).`;
}

function methodNotes(options: BenchOptions, machine: MachineInfo): string {
  return [
    pinningNote(machine.cpuPinning, machine.cpuCount),
    `- Load: autocannon ${'(programmatic API, one client thread)'} over 127.0.0.1, ${options.connections} keep-alive connections, no pipelining. Each scenario: a ${options.warmupS} s warm-up of each server, then ${options.rounds} measured rounds of ${options.roundS} s, interleaved service, baseline, service, baseline… so drift on the machine hits both alike. Delete runs a fixed ${int(options.deleteAmount)} requests per round instead (its ids must exist). Ratios are the median of the per-round ratios service / baseline. Latencies are every response's exact time (autocannon's own histogram rounds to 1 ms).`,
    '- Baselines (`bench/baselines/`): raw `node:http` + better-sqlite3, and the same raw layer over in-memory sorted arrays. Per request they do the service\'s essential work: SHA-256 digest of the bearer token looked up in a map, content type, body size limit and UTF-8 checks, `JSON.parse` behind the same fast-path test as the service\'s codec and hand-written id/name/tag checks, tenant-scoped prepared statements (create: plant + outbox row in one IMMEDIATE transaction), JSON response with exact ids, `LIMIT n+1` and a Link header for pages, an `x-request-id`, and one JSON log line per request to stdout. The SQLite baseline uses the service\'s schema (same tables, keys, STRICT/WITHOUT ROWID and indexes) and pragmas (WAL, synchronous=NORMAL, foreign keys, busy timeout, bigint integers).',
    '- Lean baselines (`bench/baselines/lean-*`, SQLite and memory): the least a hand-written `node:http` server does for the same answers, for a second ratio. Bearer token → tenant by a `Map` lookup (no digest), `JSON.parse` and hand-written id/name/tag checks; create: one IMMEDIATE transaction with the plant INSERT and one outbox INSERT (an outbox table with only its rowid key), the response body built once and reused as the payload; list and get: one prepared SELECT whose JSON SQLite builds itself (`json_group_array(json_object(…))`, exact for 64-bit ids), Link header included; delete: one prepared DELETE, 204 or a small JSON 404; `writeHead` + `end(body)`. No request id, content-type or UTF-8 checks, metrics or tag filters. With logging on it writes one JSON line per request to stdout. The service must stay within 10 % of it on create, list 20, list 100, get and the 404 answer of delete.',
    '- Logging: the SQLite and memory scenarios run with logging off (`--log-level warn`) and on (one line per request), for every server of a group alike (`--logging off|on|both`).',
    '- delete-404: DELETE of ids no server holds, so every answer is the 404 error body (on SQLite the service still runs its write transaction, which changes nothing).',
    '- Both run on bare `node` (the baselines transpiled to JavaScript first), `NODE_ENV=production`, the same flags, normal `info` logging with stdout piped to the harness, which drains and discards it. Tokens: three tenants; reads, creates and deletes each use their own tenant, so they never see each other\'s rows.',
    '- Data: list and get run over 10,000 seeded plants (ids 1…10,000, half with a tag) with random cursors/ids from a seeded generator, the same sequence for both servers in a round. Create uses unique increasing ids per round. Delete removes ids created before the rounds.',
    '- Fairness of create: both servers have one subscription that matches, so both write the plant and one outbox row in the same transaction. In `create` the receiver accepts connections but never answers (timeout 1 h), which keeps webhook sending out of the measurement: the dispatcher has at most its per-endpoint cap of attempts in flight and then only reacts to each commit with an (empty) claim; that reaction is part of the service\'s create path and stays measured. Delivery is measured on its own (webhooks section). `create-webhooks` lets the service deliver every webhook to a receiver answering 200 during the rounds, which the baseline does not do: the full cost, for information, without a target.',
    '- Webhooks: the receiver runs in the harness process; arrival time is when the request head arrives. Throughput: deliveries queued through the storage API before the service starts; the rate is their count over ready line → last arrival. Latency: creates paced at 200/s; "commit → first attempt" is measured from the moment the client writes the POST, an upper bound (it includes the create request itself, whose p50 is shown) — the service\'s own record (attempt start − outbox created_at) is shown too.',
    '- Unlimited list: plants bulk-inserted with one prepared statement into a database migrated by the storage adapter, then `GET /plants` streamed and counted by the harness while GET /plants/{id} runs at 200 requests/s on 4 connections. RSS growth is the peak of 50 ms samples minus the RSS before the list.',
    '- Process figures come from /proc/<pid>/status (VmRSS) and /proc/<pid>/stat (utime + stime) of the spawned server processes; the harness, autocannon and the receiver are not counted.',
  ].join('\n');
}
