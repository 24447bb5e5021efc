import type { BigListResult } from '../scenarios/big-list-scenario.js';
import type { EndpointScaleResult } from '../scenarios/endpoint-scale-scenario.js';
import type { StartupResult } from '../scenarios/startup-scenario.js';
import type { SteadyStateResult } from '../scenarios/steady-state-scenario.js';
import type { WebhookResult } from '../scenarios/webhook-scenario.js';
import type { FairDeliveryResult } from '../scenarios/fair-delivery-scenario.js';
import type { OrderedDeliveryResult } from '../scenarios/ordered-delivery-scenario.js';
import type { FilteredFanOutResult } from '../scenarios/filtered-fan-out-scenario.js';
import type { PgHostPoolResult } from '../scenarios/pg-host-pool-scenario.js';
import type { PairedResult } from './paired-rounds.js';
import { median } from './stats.js';

/** Everything one run measured. */
export interface BenchResults {
  readonly paired: readonly PairedResult[];
  readonly startup?: readonly StartupResult[];
  readonly webhooks?: WebhookResult;
  readonly fairDelivery?: FairDeliveryResult;
  /** Deliveries/s to one endpoint with ordering `plant` against `none`. */
  readonly orderedDelivery?: OrderedDeliveryResult;
  readonly pgOrderedDelivery?: OrderedDeliveryResult;
  readonly bigList?: BigListResult;
  /** Tracing on (`service`) against off (`baseline`), same service; `sampled` when `--tracing-sampler` was given. */
  readonly tracing?: { readonly sampled: boolean; readonly pairs: readonly PairedResult[] };
  /** The fetch handler (`service`) against the node listener (`baseline`), same store: report only. */
  readonly fetchHandler?: readonly PairedResult[];
  /** Creates on the host's `pg.Pool` against the store's own pool, and in host transactions. */
  readonly pgHostPool?: PgHostPoolResult;
  /** Two service instances dispatching from one PostgreSQL schema. */
  readonly pgWebhooks?: WebhookResult;
  readonly pgBigList?: BigListResult;
  /** Minutes of steady create-and-deliver load with a short retention. */
  readonly steadyState?: SteadyStateResult;
  readonly pgSteadyState?: SteadyStateResult;
  /** Creates with a filter on every endpoint against the same fan-out without. */
  readonly filteredFanOut?: FilteredFanOutResult;
  readonly pgFilteredFanOut?: FilteredFanOutResult;
  /** Delivery and fan-out with 10 to 5,000 endpoints over 1 to 500 tenants (report only). */
  readonly endpointScale?: EndpointScaleResult;
}

/** One target against what was measured. */
export interface TargetCheck {
  readonly target: string;
  readonly measured: string;
  readonly pass: boolean;
}

/** Scenarios with a throughput target against the lean baseline, on SQLite and PostgreSQL (the in-memory storage is a test double: no target). */
export const THROUGHPUT_TARGET_SCENARIOS: readonly string[] = ['create', 'list-20', 'list-100', 'get', 'delete-404'];
/** Scenarios with a p99 target as well. */
export const P99_TARGET_SCENARIOS: readonly string[] = ['create', 'list-20', 'list-100'];
export const MIN_THROUGHPUT_RATIO = 0.9;
export const MAX_P99_RATIO = 1.5;
/** Tracing every request may cost under 30 % of req/s; with a sampler (1 % of requests), under 10 %. */
export const tracingMinRatio = (sampled: boolean) => (sampled ? 0.9 : 0.7);
/** Under a steady load with retention, storage may grow at most this much over the second half of the run. */
export const STEADY_MAX_GROWTH_PERCENT = 5;
/** Pruning batches may move the create p99 by at most this factor. */
export const STEADY_MAX_P99_RATIO = 1.2;
/** A store on the host's pool runs the same statements as on its own: creates/s within 5 % either way. */
export const HOST_POOL_RATIO_RANGE = [0.95, 1.05] as const;

export type Figure = 'rps' | 'p99Ms' | 'p50Ms' | 'cpuUsPerRequest';

/** Median of the per-round ratios service / baseline of one figure. */
export function medianRatio(result: PairedResult, figure: Figure): number {
  return median(result.service.map((round, index) => round[figure] / result.baseline[index]![figure]));
}

/** Whether a paired result carries targets: not on the in-memory storage. */
export const targeted = (result: PairedResult, scenarios: readonly string[]) => scenarios.includes(result.scenario) && !result.storage.startsWith('memory');

const MiB = 2 ** 20;
const clean = (result: PairedResult) => [...result.service, ...result.baseline].every((round) => round.failures === 0);
const check = (target: string, measured: string, pass: boolean): TargetCheck => ({ target, measured, pass });

export function checkTargets(results: BenchResults): TargetCheck[] {
  const checks: TargetCheck[] = [];
  for (const result of results.paired) {
    const where = `${result.scenario} (${result.storage})`;
    if (targeted(result, THROUGHPUT_TARGET_SCENARIOS)) {
      const rps = medianRatio(result, 'rps');
      const measured = `${rps.toFixed(2)}x (CPU µs/req ${medianRatio(result, 'cpuUsPerRequest').toFixed(2)}x)${clean(result) ? '' : ' (with failed requests)'}`;
      checks.push(check(`${where}: req/s ≥ ${MIN_THROUGHPUT_RATIO}x lean baseline`, measured, rps >= MIN_THROUGHPUT_RATIO && clean(result)));
    }
    if (targeted(result, P99_TARGET_SCENARIOS)) {
      const p99 = medianRatio(result, 'p99Ms');
      checks.push(check(`${where}: p99 ≤ ${MAX_P99_RATIO}x lean baseline`, `${p99.toFixed(2)}x`, p99 <= MAX_P99_RATIO));
    }
  }
  for (const result of results.tracing?.pairs ?? []) {
    const min = tracingMinRatio(results.tracing!.sampled);
    const rps = medianRatio(result, 'rps');
    const measured = `${rps.toFixed(3)}x${clean(result) ? '' : ' (with failed requests)'}`;
    checks.push(check(`${result.scenario} (${result.storage}): req/s with tracing ≥ ${min}x without`, measured, rps >= min && clean(result)));
  }
  for (const hooks of [results.webhooks, results.pgWebhooks]) {
    if (!hooks) continue;
    const where = `webhooks (${hooks.storage}${hooks.instances > 1 ? `, ${hooks.instances} instances on one database` : ''})`;
    checks.push(
      check(`${where}: ≥ 2,000 deliveries/s`, `${hooks.backlog.perSecond.toFixed(0)}/s`, hooks.backlog.perSecond >= 2000),
      check(
        `${where}: commit → first attempt p50 < 10 ms`,
        `${hooks.latency.p50Ms.toFixed(2)} ms (p99 ${hooks.latency.p99Ms.toFixed(2)} ms)`,
        hooks.latency.p50Ms < 10,
      ),
      check(
        `${where}: 0 concurrent duplicate attempts`,
        `${hooks.concurrentDuplicates} (repeated webhook-ids in all: ${hooks.duplicates})`,
        hooks.concurrentDuplicates === 0,
      ),
      check(
        `${where}: a webhook for every answered create, signed validly`,
        `${hooks.received} received for ${hooks.expected} answered; ${hooks.signatures.valid}/${hooks.signatures.checked} signatures valid`,
        hooks.received >= hooks.expected && hooks.signatures.valid === hooks.signatures.checked,
      ),
    );
  }
  const fair = results.fairDelivery;
  if (fair) {
    const ratio = fair.withHanging.p99Ms / fair.alone.p99Ms;
    checks.push(
      check(
        `fair delivery: another tenant's webhook p99 with ${fair.queuedToHanging} deliveries to hanging endpoints ≤ 1.2x alone`,
        `${ratio.toFixed(2)}x (${fair.withHanging.p99Ms.toFixed(1)} ms against ${fair.alone.p99Ms.toFixed(1)} ms; p50 ${fair.withHanging.p50Ms.toFixed(1)} against ${fair.alone.p50Ms.toFixed(1)} ms)`,
        ratio <= 1.2 && fair.withHanging.deliveries > 0,
      ),
    );
  }
  for (const ordered of [results.orderedDelivery, results.pgOrderedDelivery]) {
    if (!ordered) continue;
    const where = ordered.storage === 'sqlite' ? 'SQLite' : `${ordered.instances} PostgreSQL instances`;
    checks.push(
      check(
        `ordered delivery (${where}): with ordering plant, no plant.deleted before its plant.created`,
        `${ordered.plant.outOfOrder} of ${ordered.plants} out of order (${ordered.none.outOfOrder} without ordering); ${ordered.ratio.toFixed(2)}x the deliveries/s`,
        ordered.plant.outOfOrder === 0,
      ),
    );
  }
  for (const [big, where] of [
    [results.bigList, ''],
    [results.pgBigList, ' (postgres)'],
  ] as const) {
    if (!big) continue;
    checks.push(
      check(
        `unlimited list of ${big.plants.toLocaleString('en-US')}${where}: peak RSS growth < 64 MiB`,
        `${(big.peakGrowthBytes / MiB).toFixed(1)} MiB`,
        big.peakGrowthBytes < 64 * MiB && big.received === big.plants,
      ),
      check(
        `unlimited list${where}: small requests meanwhile p99 < 50 ms`,
        `${big.small.p99Ms.toFixed(1)} ms`,
        big.small.p99Ms < 50 && big.small.failures === 0,
      ),
    );
  }
  for (const steady of [results.steadyState, results.pgSteadyState]) {
    if (!steady) continue;
    const where = `steady state (${steady.storage}, ${steady.seconds} s at ${steady.ratePerSecond} creates/s, retention ${steady.retentionS} s)`;
    const ratio = steady.p99PruningMs / steady.p99IdleMs;
    checks.push(
      check(
        `${where}: size grows < ${STEADY_MAX_GROWTH_PERCENT} % over the second half`,
        `${steady.growthPercent.toFixed(1)} % (${(steady.midBytes / MiB).toFixed(1)} → ${(steady.finalBytes / MiB).toFixed(1)} MiB)`,
        steady.growthPercent < STEADY_MAX_GROWTH_PERCENT && steady.failures === 0,
      ),
      check(
        `${where}: create p99 while pruning ≤ ${STEADY_MAX_P99_RATIO}x without`,
        `${Number.isFinite(ratio) ? ratio.toFixed(2) : 'n/a'}x (${steady.p99PruningMs.toFixed(2)} vs ${steady.p99IdleMs.toFixed(2)} ms)`,
        ratio <= STEADY_MAX_P99_RATIO,
      ),
    );
  }
  const hostPool = results.pgHostPool;
  if (hostPool) {
    const [low, high] = HOST_POOL_RATIO_RANGE;
    checks.push(
      check(
        `pg-host-pool: creates/s on the host's pg.Pool within ${low}x–${high}x of the store's own pool`,
        `${hostPool.hostVsOwn.toFixed(3)}x (${Math.round(hostPool.medians.hostPool)} against ${Math.round(hostPool.medians.ownPool)}/s; ${hostPool.statementsPerPlant.toFixed(2)} statements per plant in a host transaction)`,
        hostPool.hostVsOwn >= low && hostPool.hostVsOwn <= high,
      ),
    );
  }
  for (const filtered of [results.filteredFanOut, results.pgFilteredFanOut]) {
    if (!filtered) continue;
    checks.push(
      check(
        `${filtered.storage}: creates/s with a filter on every endpoint ≥ 0.9x the same fan-out without`,
        `${filtered.filteredVsUnfiltered.toFixed(3)}x (${Math.round(filtered.medians.filtered)} against ${Math.round(filtered.medians.unfiltered)}/s)`,
        filtered.filteredVsUnfiltered >= 0.9,
      ),
    );
  }
  for (const start of results.startup ?? []) {
    if (start.contestant !== 'service' || start.storage === 'memory') continue;
    checks.push(
      check(`start to ready (${start.storage}) ≤ 300 ms`, `${start.medianReadyMs.toFixed(0)} ms`, start.medianReadyMs <= 300),
      check(`idle RSS (${start.storage}) < 80 MiB`, `${(start.medianIdleRssBytes / MiB).toFixed(1)} MiB`, start.medianIdleRssBytes < 80 * MiB),
    );
  }
  return checks;
}
