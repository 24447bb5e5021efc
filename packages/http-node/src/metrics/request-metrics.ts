import type { Counter, Histogram, Registry } from 'prom-client';
import type { PromClientModule } from './prom-client-module.js';

/** Request durations in seconds: most answers take well under a millisecond, a streamed listing can take seconds. */
export const REQUEST_DURATION_BUCKETS: readonly number[] = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];

// Anything else (node:http accepts a few dozen methods) is `OTHER`, so a
// client cannot add series by inventing methods.
const METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** The per-request instruments, bound to one label set. */
interface Children {
  readonly count: Counter.Internal;
  readonly duration: Histogram.Internal<string>;
}

/** Counts and times requests by method, route template and status. */
export interface RequestMetrics {
  /** `route` must already be a template (or `unmatched`), never a raw path. */
  observe(method: string | undefined, route: string, status: number, seconds: number): void;
}

export function createRequestMetrics(client: PromClientModule, register: Registry): RequestMetrics {
  const labelNames = ['method', 'route', 'status'] as const;
  const count = new client.Counter({
    name: 'plant_store_http_requests_total',
    help: 'HTTP requests answered, by method, route template and status.',
    labelNames,
    registers: [register],
  });
  const duration = new client.Histogram({
    name: 'plant_store_http_request_duration_seconds',
    help: 'Time from receiving a request to finishing its response, by method, route template and status.',
    labelNames,
    buckets: [...REQUEST_DURATION_BUCKETS],
    registers: [register],
  });
  // The label sets are few (methods × routes × statuses): bind each once
  // instead of passing a label object per request.
  const children = new Map<string, Children>();
  return {
    observe(method, route, status, seconds) {
      const methodLabel = method !== undefined && METHODS.has(method) ? method : 'OTHER';
      const key = `${methodLabel} ${route} ${status}`;
      let bound = children.get(key);
      if (bound === undefined) {
        const labels = [methodLabel, route, String(status)];
        bound = { count: count.labels(...labels), duration: duration.labels(...labels) };
        children.set(key, bound);
      }
      bound.count.inc();
      bound.duration.observe(seconds);
    },
  };
}
