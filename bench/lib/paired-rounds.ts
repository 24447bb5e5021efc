import { runLoad, type LoadRequest } from './load.js';
import type { RunningServer } from './server-process.js';

/** A load shape run against both servers of a pair. */
export interface PairedScenario {
  readonly name: string;
  readonly description: string;
  readonly headers: Readonly<Record<string, string>>;
  /** Fixed number of requests per phase instead of a duration (e.g. delete over pre-created ids). */
  readonly amount?: number;
  /** The status every answer should have (e.g. 404 for deletes of missing ids). @default any 2xx */
  readonly expectedStatus?: number;
  /**
   * Request generator for one phase (0 = warm-up, 1… = rounds). Called once
   * per server and phase with the same phase number, so both servers see
   * the same sequence and create/delete ids never repeat across phases.
   */
  requests(phase: number): () => LoadRequest;
}

/** The figures of one server in one phase. */
export interface RoundFigures {
  readonly phase: number;
  readonly requests: number;
  readonly rps: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  /** Server CPU (user + system) over the phase, % of one core. */
  readonly cpuPercent: number;
  /** Server CPU time per answered request, microseconds. */
  readonly cpuUsPerRequest: number;
  /** Server RSS at the end of the phase. */
  readonly rssBytes: number;
  readonly failures: number;
  readonly statuses: Readonly<Record<string, number>>;
}

export interface PairedResult {
  readonly scenario: string;
  readonly description: string;
  /** Where the servers keep their data, e.g. `sqlite` or `postgres, logging off`. */
  readonly storage: string;
  readonly warmup: { readonly service: RoundFigures; readonly baseline: RoundFigures };
  /** Measured rounds, in order; index i of both arrays ran back to back. */
  readonly service: readonly RoundFigures[];
  readonly baseline: readonly RoundFigures[];
  /** The lean baseline (SQLite and memory), measured right after the baseline in every phase. */
  readonly lean?: { readonly warmup: RoundFigures; readonly rounds: readonly RoundFigures[] };
}

export interface PairedSettings {
  readonly connections: number;
  readonly warmupS: number;
  readonly roundS: number;
  readonly rounds: number;
}

async function measure(
  server: RunningServer,
  scenario: PairedScenario,
  phase: number,
  durationS: number,
  connections: number,
): Promise<RoundFigures> {
  const before = server.stats();
  const result = await runLoad({
    url: server.url,
    connections,
    durationS,
    amount: scenario.amount,
    expectedStatus: scenario.expectedStatus,
    headers: scenario.headers,
    next: scenario.requests(phase),
  });
  const after = server.stats();
  const cpuSeconds = after.cpuSeconds - before.cpuSeconds;
  return {
    phase,
    requests: result.requests,
    rps: result.rps,
    p50Ms: result.p50Ms,
    p99Ms: result.p99Ms,
    maxMs: result.maxMs,
    cpuPercent: (cpuSeconds / result.elapsedS) * 100,
    cpuUsPerRequest: result.requests ? (cpuSeconds * 1e6) / result.requests : Number.NaN,
    rssBytes: after.rssBytes,
    failures: result.failures,
    statuses: result.statuses,
  };
}

/**
 * A baseline that fails is broken (it answers errors fast), and a ratio
 * against it would look like a win: stop at the warm-up rather than report one.
 */
function refuseFailingBaseline(what: string, warmup: RoundFigures): void {
  if (warmup.failures === 0) return;
  throw new Error(
    `${what}: the baseline failed ${warmup.failures} of ${warmup.requests} warm-up requests ` +
      `(statuses ${JSON.stringify(warmup.statuses)}); no comparison with it is meaningful`,
  );
}

/**
 * Warm-up of both servers, then measured rounds interleaved service,
 * baseline, service, baseline…, so drift on a shared machine (other load,
 * thermal, page cache) hits both alike and each round yields one ratio.
 * A lean baseline, when given, runs right after the baseline in every
 * phase and yields a second ratio per round.
 */
export async function runPairedRounds(
  scenario: PairedScenario,
  storage: string,
  servers: { readonly service: RunningServer; readonly baseline: RunningServer; readonly lean?: RunningServer },
  settings: PairedSettings,
  log: (message: string) => void,
): Promise<PairedResult> {
  const { connections } = settings;
  const warmup = {
    service: await measure(servers.service, scenario, 0, settings.warmupS, connections),
    baseline: await measure(servers.baseline, scenario, 0, settings.warmupS, connections),
  };
  refuseFailingBaseline(`${scenario.name} (${storage})`, warmup.baseline);
  const lean = servers.lean && { warmup: await measure(servers.lean, scenario, 0, settings.warmupS, connections), rounds: [] as RoundFigures[] };
  if (lean) refuseFailingBaseline(`${scenario.name} (${storage}, lean)`, lean.warmup);
  const service: RoundFigures[] = [];
  const baseline: RoundFigures[] = [];
  for (let round = 1; round <= settings.rounds; round++) {
    const a = await measure(servers.service, scenario, round, settings.roundS, connections);
    const b = await measure(servers.baseline, scenario, round, settings.roundS, connections);
    service.push(a);
    baseline.push(b);
    const c = servers.lean && (await measure(servers.lean, scenario, round, settings.roundS, connections));
    if (c) lean!.rounds.push(c);
    log(
      `  ${scenario.name} ${storage} round ${round}: service ${a.rps.toFixed(0)} req/s p99 ${a.p99Ms.toFixed(2)} ms ${a.cpuUsPerRequest.toFixed(0)} µs/req, ` +
        `baseline ${b.rps.toFixed(0)} req/s p99 ${b.p99Ms.toFixed(2)} ms ${b.cpuUsPerRequest.toFixed(0)} µs/req → ${(a.rps / b.rps).toFixed(2)}x` +
        (c ? `, lean ${c.rps.toFixed(0)} req/s ${c.cpuUsPerRequest.toFixed(0)} µs/req → ${(a.rps / c.rps).toFixed(2)}x` : '') +
        (a.failures + b.failures ? `  (failures: service ${a.failures}, baseline ${b.failures})` : ''),
    );
  }
  return { scenario: scenario.name, description: scenario.description, storage, warmup, service, baseline, ...(lean ? { lean } : {}) };
}
