import type { BenchOptions } from './bench-options.js';
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

/** The figures of one server in one phase; CPU % is its user + system time over the phase (100 = one core), RSS at the end of it. */
export type RoundFigures = Awaited<ReturnType<typeof measure>>;
export type PairedResult = Awaited<ReturnType<typeof runPairedRounds>>;
type PairedSettings = Pick<BenchOptions, 'connections' | 'warmupS' | 'roundS' | 'rounds'>;

async function measure(server: RunningServer, scenario: PairedScenario, phase: number, durationS: number, connections: number) {
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
  const cpuSeconds = server.stats().cpuSeconds - before.cpuSeconds;
  return {
    ...result,
    cpuPercent: (cpuSeconds / result.elapsedS) * 100,
    cpuUsPerRequest: result.requests ? (cpuSeconds * 1e6) / result.requests : Number.NaN,
    rssBytes: server.stats().rssBytes,
  };
}

/**
 * Warm-up of both servers, then measured rounds interleaved service,
 * baseline, service, baseline…, so drift on a shared machine (other load,
 * thermal, page cache) hits both alike and each round yields one ratio.
 * A baseline that fails warm-up requests is broken (it answers errors
 * fast), and a ratio against it would look like a win: that stops here.
 */
export async function runPairedRounds(
  scenario: PairedScenario,
  storage: string,
  servers: { readonly service: RunningServer; readonly baseline: RunningServer },
  settings: PairedSettings,
  log: (message: string) => void,
) {
  const run = (server: RunningServer, phase: number) =>
    measure(server, scenario, phase, phase === 0 ? settings.warmupS : settings.roundS, settings.connections);
  const warmup = { service: await run(servers.service, 0), baseline: await run(servers.baseline, 0) };
  if (warmup.baseline.failures > 0) {
    throw new Error(
      `${scenario.name} (${storage}): the baseline failed ${warmup.baseline.failures} of ${warmup.baseline.requests} warm-up requests (${JSON.stringify(warmup.baseline.statuses)})`,
    );
  }
  const service: RoundFigures[] = [];
  const baseline: RoundFigures[] = [];
  for (let round = 1; round <= settings.rounds; round++) {
    const a = await run(servers.service, round);
    const b = await run(servers.baseline, round);
    service.push(a);
    baseline.push(b);
    log(
      `  ${scenario.name} ${storage} round ${round}: service ${a.rps.toFixed(0)} req/s ${a.cpuUsPerRequest.toFixed(0)} µs/req, ` +
        `baseline ${b.rps.toFixed(0)} req/s ${b.cpuUsPerRequest.toFixed(0)} µs/req → ${(a.rps / b.rps).toFixed(2)}x` +
        (a.failures + b.failures ? `  (failures: service ${a.failures}, baseline ${b.failures})` : ''),
    );
  }
  // Index i of `service` and `baseline` ran back to back; `storage` says where the servers keep their data, e.g. `postgres, logging off`.
  return { scenario: scenario.name, description: scenario.description, storage, warmup, service, baseline };
}
