import { createRequire } from 'node:module';
import { latencySummary } from './stats.js';

/** One request to send: produced per request, so ids and cursors can vary. */
export interface LoadRequest {
  readonly method: 'GET' | 'POST' | 'DELETE';
  readonly path: string;
  readonly body?: string;
}

export interface LoadOptions {
  readonly url: string;
  readonly connections: number;
  /** Run for this many seconds, or until exactly `amount` requests are answered (which takes precedence). */
  readonly durationS?: number;
  readonly amount?: number;
  /** Total requests per second across connections. @default unlimited */
  readonly overallRate?: number;
  readonly headers?: Readonly<Record<string, string>>;
  /** Called once per request, right before it is written. */
  readonly next: () => LoadRequest;
  /** The status every answer should have; others count as failures. @default any 2xx */
  readonly expectedStatus?: number;
  /** Seconds a request may wait for its answer before it counts as a failure. @default 30 */
  readonly timeoutS?: number;
}

export type LoadResult = ReturnType<typeof summarize>;

// The slice of autocannon's programmatic API used here (it ships no types).
type Autocannon = (
  options: Record<string, unknown>,
  callback: (error: Error | null, result: { errors: number; timeouts: number }) => void,
) => { on(event: 'response', listener: (client: unknown, statusCode: number, bytes: number, ms: number) => void): void; stop(): void };

const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

/** Latencies are every answered request's exact time in ms (not autocannon's 1 ms buckets); failures are answers outside 2xx (or not the expected status), connection errors and timeouts. */
function summarize(latencies: readonly number[], elapsedS: number, statuses: Readonly<Record<string, number>>, failures: number) {
  const { p50, p99, max } = latencySummary(latencies);
  return { requests: latencies.length, elapsedS, rps: latencies.length / elapsedS, p50Ms: p50, p99Ms: p99, maxMs: max, statuses, failures };
}

/** Starts an autocannon run over keep-alive connections (no workers: one client thread, the same for every server); `stop()` ends it early. */
export function startLoad(options: LoadOptions): { readonly done: Promise<LoadResult>; stop(): void } {
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let unexpected = 0;
  const started = performance.now();
  let lastResponse = 0;
  let instance: ReturnType<Autocannon> | undefined;
  const done = new Promise<LoadResult>((resolve, reject) => {
    const settings = {
      url: options.url,
      connections: options.connections,
      duration: options.durationS ?? 3600,
      amount: options.amount,
      overallRate: options.overallRate,
      headers: options.headers,
      timeout: options.timeoutS ?? 30,
      requests: [{ setupRequest: (request: object) => Object.assign(request, options.next()) }],
    };
    instance = autocannon(settings, (error, result) => {
      if (error) return reject(error);
      // Up to the last response: autocannon notices the end of an `amount` run only on its next 1 s tick.
      const elapsedS = ((lastResponse || performance.now()) - started) / 1000;
      resolve(summarize(latencies, elapsedS, statuses, unexpected + result.errors + result.timeouts));
    });
    instance.on('response', (_client, statusCode, _bytes, ms) => {
      lastResponse = performance.now();
      latencies.push(ms);
      statuses[statusCode] = (statuses[statusCode] ?? 0) + 1;
      if (options.expectedStatus === undefined ? statusCode < 200 || statusCode > 299 : statusCode !== options.expectedStatus) unexpected++;
    });
  });
  return { done, stop: () => instance?.stop() };
}

/** Runs a load to completion. */
export function runLoad(options: LoadOptions): Promise<LoadResult> {
  return startLoad(options).done;
}
