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
}

export interface LoadResult {
  readonly requests: number;
  readonly elapsedS: number;
  readonly rps: number;
  /** Latency of every answered request, milliseconds (exact, not autocannon's 1 ms buckets). */
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  readonly statuses: Readonly<Record<string, number>>;
  /** Answers outside 2xx (or not the expected status) plus connection errors and timeouts. */
  readonly failures: number;
}

/** A running load; `stop()` ends it early. */
export interface LoadRun {
  readonly done: Promise<LoadResult>;
  stop(): void;
}

// The slice of autocannon's programmatic API used here (it ships no types).
interface AutocannonRequest {
  method: string;
  path: string;
  body?: string;
  headers?: Record<string, string>;
}
interface AutocannonInstance {
  on(event: 'response', listener: (client: unknown, statusCode: number, bytes: number, ms: number) => void): void;
  stop(): void;
}
interface AutocannonResult {
  errors: number;
  timeouts: number;
}
type Autocannon = (options: Record<string, unknown>, callback: (error: Error | null, result: AutocannonResult) => void) => AutocannonInstance;

const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

/** Starts an autocannon run over keep-alive connections (no workers: one client thread, the same for every server). */
export function startLoad(options: LoadOptions): LoadRun {
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let non2xx = 0;
  let started = 0;
  let lastResponse = 0;
  let instance: AutocannonInstance | undefined;
  const done = new Promise<LoadResult>((resolve, reject) => {
    started = performance.now();
    instance = autocannon(
      {
        url: options.url,
        connections: options.connections,
        duration: options.durationS ?? 3600,
        amount: options.amount,
        overallRate: options.overallRate,
        headers: options.headers,
        timeout: 30,
        requests: [
          {
            setupRequest(request: AutocannonRequest) {
              const next = options.next();
              request.method = next.method;
              request.path = next.path;
              request.body = next.body;
              return request;
            },
          },
        ],
      },
      (error, result) => {
        if (error) return reject(error);
        // Up to the last response: autocannon notices the end of an \`amount\` run only on its next 1 s tick.
        const elapsedS = ((lastResponse || performance.now()) - started) / 1000;
        const summary = latencySummary(latencies);
        resolve({
          requests: latencies.length,
          elapsedS,
          rps: latencies.length / elapsedS,
          p50Ms: summary.p50,
          p99Ms: summary.p99,
          maxMs: summary.max,
          statuses,
          failures: non2xx + result.errors + result.timeouts,
        });
      },
    );
    instance.on('response', (_client, statusCode, _bytes, ms) => {
      lastResponse = performance.now();
      latencies.push(ms);
      statuses[statusCode] = (statuses[statusCode] ?? 0) + 1;
      if (options.expectedStatus === undefined ? statusCode < 200 || statusCode > 299 : statusCode !== options.expectedStatus) non2xx++;
    });
  });
  return { done, stop: () => instance?.stop() };
}

/** Runs a load to completion. */
export function runLoad(options: LoadOptions): Promise<LoadResult> {
  return startLoad(options).done;
}
