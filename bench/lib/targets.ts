import type { BigListResult } from '../scenarios/big-list-scenario.js';
import type { PgWebhookResult } from '../scenarios/pg-webhook-scenario.js';
import type { StartupResult } from '../scenarios/startup-scenario.js';
import type { SteadyStateResult } from '../scenarios/steady-state-scenario.js';
import type { WebhookResult } from '../scenarios/webhook-scenario.js';
import type { FairDeliveryResult } from '../scenarios/fair-delivery-scenario.js';
import type { PairedResult } from './paired-rounds.js';
import { median } from './stats.js';

/** Everything one run measured. */
export interface BenchResults {
  readonly paired: readonly PairedResult[];
  readonly startup?: readonly StartupResult[];
  readonly webhooks?: WebhookResult;
  readonly fairDelivery?: FairDeliveryResult;
  readonly bigList?: BigListResult;
  /** Metrics on (`service`) against metrics off (`baseline`), same service. */
  readonly metrics?: readonly PairedResult[];
  /** Tracing on, exporting to a local OTLP sink (`service`), against tracing off (`baseline`), same service. */
  readonly tracing?: readonly PairedResult[];
  /** The service spinning a few microseconds before each response (`service`) against itself (`baseline`): no target, a scale. */
  readonly busyWait?: readonly PairedResult[];
  /** Two service instances dispatching from one PostgreSQL schema. */
  readonly pgWebhooks?: PgWebhookResult;
  /** The unlimited list on PostgreSQL. */
  readonly pgBigList?: BigListResult;
  /** Minutes of steady create-and-deliver load with a short retention. */
  readonly steadyState?: SteadyStateResult;
  readonly pgSteadyState?: SteadyStateResult;
}

/** One target against what was measured. */
export interface TargetCheck {
  readonly target: string;
  readonly measured: string;
  readonly pass: boolean;
}

/** Scenarios with throughput and p99 targets against the baseline. */
export const RATIO_TARGET_SCENARIOS: readonly string[] = ['create', 'list-20', 'list-100'];
export const MIN_THROUGHPUT_RATIO = 0.9;
export const MAX_P99_RATIO = 1.5;
/** Under a steady load with retention, storage may grow at most this much over the second half of the run. */
export const STEADY_MAX_GROWTH_PERCENT = 5;
/** Pruning batches may move the create p99 by at most this factor. */
export const STEADY_MAX_P99_RATIO = 1.2;
/** Metrics may cost at most 3 % of req/s: counting every request must stay
 * cheap enough that nobody turns metrics off to go faster. */
export const METRICS_MIN_THROUGHPUT_RATIO = 0.97;
/** Tracing every request (with its storage spans) and exporting them may cost at most 10 % of req/s. */
export const TRACING_MIN_THROUGHPUT_RATIO = 0.9;

/** Scenarios with a throughput target against the lean baseline (where there is one: SQLite and memory). */
export const LEAN_TARGET_SCENARIOS: readonly string[] = ['create', 'list-20', 'list-100', 'get', 'delete-404'];

/** Median of the per-round ratios service / baseline of one figure. */
export function medianRatio(result: PairedResult, figure: 'rps' | 'p99Ms' | 'p50Ms' | 'cpuUsPerRequest'): number {
  return median(result.service.map((round, index) => round[figure] / result.baseline[index]![figure]));
}

/** Median of the per-round ratios service / lean baseline of one figure; NaN without a lean baseline. */
export function medianLeanRatio(result: PairedResult, figure: 'rps' | 'p99Ms' | 'p50Ms' | 'cpuUsPerRequest'): number {
  const lean = result.lean?.rounds;
  if (!lean) return Number.NaN;
  return median(result.service.map((round, index) => round[figure] / lean[index]![figure]));
}

const MiB = 2 ** 20;

export function checkTargets(results: BenchResults): TargetCheck[] {
  const checks: TargetCheck[] = [];
  for (const result of results.paired) {
    if (!RATIO_TARGET_SCENARIOS.includes(result.scenario)) continue;
    const rps = medianRatio(result, 'rps');
    const p99 = medianRatio(result, 'p99Ms');
    const clean = [...result.service, ...result.baseline].every((round) => round.failures === 0);
    checks.push({
      target: `${result.scenario} (${result.storage}): req/s ≥ ${MIN_THROUGHPUT_RATIO}x baseline`,
      measured: `${rps.toFixed(2)}x${clean ? '' : ' (with failed requests)'}`,
      pass: rps >= MIN_THROUGHPUT_RATIO && clean,
    });
    checks.push({
      target: `${result.scenario} (${result.storage}): p99 ≤ ${MAX_P99_RATIO}x baseline`,
      measured: `${p99.toFixed(2)}x`,
      pass: p99 <= MAX_P99_RATIO,
    });
  }
  for (const result of results.paired) {
    if (!result.lean || !LEAN_TARGET_SCENARIOS.includes(result.scenario)) continue;
    const rps = medianLeanRatio(result, 'rps');
    const clean = [...result.service, ...result.lean.rounds].every((round) => round.failures === 0);
    checks.push({
      target: `${result.scenario} (${result.storage}): req/s ≥ ${MIN_THROUGHPUT_RATIO}x lean baseline`,
      measured: `${rps.toFixed(2)}x (CPU µs/req ${medianLeanRatio(result, 'cpuUsPerRequest').toFixed(2)}x)${clean ? '' : ' (with failed requests)'}`,
      pass: rps >= MIN_THROUGHPUT_RATIO && clean,
    });
  }
  for (const result of results.metrics ?? []) {
    const rps = medianRatio(result, 'rps');
    const clean = [...result.service, ...result.baseline].every((round) => round.failures === 0);
    checks.push({
      target: `${result.scenario} (${result.storage}): req/s with metrics ≥ ${METRICS_MIN_THROUGHPUT_RATIO}x without`,
      measured: `${rps.toFixed(3)}x${clean ? '' : ' (with failed requests)'}`,
      pass: rps >= METRICS_MIN_THROUGHPUT_RATIO && clean,
    });
  }
  for (const result of results.tracing ?? []) {
    const rps = medianRatio(result, 'rps');
    const clean = [...result.service, ...result.baseline].every((round) => round.failures === 0);
    checks.push({
      target: `${result.scenario} (${result.storage}): req/s with tracing ≥ ${TRACING_MIN_THROUGHPUT_RATIO}x without`,
      measured: `${rps.toFixed(3)}x${clean ? '' : ' (with failed requests)'}`,
      pass: rps >= TRACING_MIN_THROUGHPUT_RATIO && clean,
    });
  }
  const hooks = results.webhooks;
  if (hooks) {
    checks.push({
      target: 'webhooks: ≥ 2,000 deliveries/s',
      measured: `${hooks.backlog.perSecond.toFixed(0)}/s`,
      pass: hooks.backlog.perSecond >= 2000,
    });
    checks.push({
      target: 'webhooks: commit → first attempt p50 < 10 ms',
      measured: `${hooks.latency.clientP50Ms.toFixed(2)} ms (p99 ${hooks.latency.clientP99Ms.toFixed(2)} ms)`,
      pass: hooks.latency.clientP50Ms < 10,
    });
    checks.push({
      target: 'webhooks: every delivery signed validly, none lost',
      measured: `${hooks.signatures.valid}/${hooks.signatures.checked} signatures valid`,
      pass: hooks.signatures.valid === hooks.signatures.checked,
    });
  }
  const fair = results.fairDelivery;
  if (fair) {
    const ratio = fair.withHanging.p99Ms / fair.alone.p99Ms;
    checks.push({
      target: `fair delivery: another tenant's webhook p99 with ${fair.queuedToHanging} deliveries to hanging endpoints ≤ 1.2x alone`,
      measured: `${ratio.toFixed(2)}x (${fair.withHanging.p99Ms.toFixed(1)} ms against ${fair.alone.p99Ms.toFixed(1)} ms; p50 ${fair.withHanging.p50Ms.toFixed(1)} against ${fair.alone.p50Ms.toFixed(1)} ms)`,
      pass: ratio <= 1.2 && fair.withHanging.deliveries > 0,
    });
  }
  if (results.pgWebhooks) checks.push(...pgWebhookChecks(results.pgWebhooks));
  for (const [big, where] of [
    [results.bigList, ''],
    [results.pgBigList, ' (postgres)'],
  ] as const) {
    if (!big) continue;
    checks.push({
      target: `unlimited list of ${big.plants.toLocaleString('en-US')}${where}: peak RSS growth < 64 MiB`,
      measured: `${(big.peakGrowthBytes / MiB).toFixed(1)} MiB`,
      pass: big.peakGrowthBytes < 64 * MiB && big.received === big.plants,
    });
    checks.push({
      target: `unlimited list${where}: small requests meanwhile p99 < 50 ms`,
      measured: `${big.small.p99Ms.toFixed(1)} ms`,
      pass: big.small.p99Ms < 50 && big.small.failures === 0,
    });
  }
  for (const steady of [results.steadyState, results.pgSteadyState]) {
    if (steady) checks.push(...steadyStateChecks(steady));
  }
  for (const start of results.startup ?? []) {
    if (start.contestant !== 'service') continue;
    checks.push({
      target: `start to ready (${start.storage}) < 300 ms`,
      measured: `${start.medianReadyMs.toFixed(0)} ms`,
      pass: start.medianReadyMs < 300,
    });
    checks.push({
      target: `idle RSS (${start.storage}) < 80 MiB`,
      measured: `${(start.medianIdleRssBytes / MiB).toFixed(1)} MiB`,
      pass: start.medianIdleRssBytes < 80 * MiB,
    });
  }
  return checks;
}

function pgWebhookChecks(hooks: PgWebhookResult): TargetCheck[] {
  return [
    {
      target: `webhooks, ${hooks.instances} instances on one PostgreSQL database: ≥ 2,000 deliveries/s`,
      measured: `${hooks.backlog.perSecond.toFixed(0)}/s`,
      pass: hooks.backlog.perSecond >= 2000,
    },
    {
      target: `webhooks, ${hooks.instances} instances: 0 concurrent duplicate attempts`,
      measured: `${hooks.concurrentDuplicates} (repeated webhook-ids in all: ${hooks.duplicates})`,
      pass: hooks.concurrentDuplicates === 0,
    },
    {
      target: `webhooks, ${hooks.instances} instances: every delivery received and signed validly`,
      measured: `${hooks.received} of ${hooks.expected} received, ${hooks.outbox.notDelivered} not delivered; ${hooks.signatures.valid}/${hooks.signatures.checked} signatures valid`,
      pass: hooks.received === hooks.expected && hooks.outbox.notDelivered === 0 && hooks.signatures.valid === hooks.signatures.checked,
    },
  ];
}

function steadyStateChecks(steady: SteadyStateResult): TargetCheck[] {
  const where = `steady state (${steady.storage}, ${steady.seconds} s at ${steady.ratePerSecond} creates/s, retention ${steady.retentionS} s)`;
  const ratio = steady.p99PruningMs / steady.p99IdleMs;
  return [
    {
      target: `${where}: size grows < ${STEADY_MAX_GROWTH_PERCENT} % over the second half`,
      measured: `${steady.growthPercent.toFixed(1)} % (${(steady.midBytes / MiB).toFixed(1)} → ${(steady.finalBytes / MiB).toFixed(1)} MiB)`,
      pass: steady.growthPercent < STEADY_MAX_GROWTH_PERCENT && steady.failures === 0,
    },
    {
      target: `${where}: create p99 while pruning ≤ ${STEADY_MAX_P99_RATIO}x without`,
      measured: `${Number.isFinite(ratio) ? ratio.toFixed(2) : 'n/a'}x (${steady.p99PruningMs.toFixed(2)} vs ${steady.p99IdleMs.toFixed(2)} ms)`,
      pass: ratio <= STEADY_MAX_P99_RATIO,
    },
  ];
}
