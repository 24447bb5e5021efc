import type * as PromClient from 'prom-client';
import type { Registry } from 'prom-client';

// Most answers take well under a millisecond, a streamed listing can take seconds.
const REQUEST_DURATION_BUCKETS: readonly number[] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

// Anything else is `OTHER`, so a client cannot add series by inventing methods.
const METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

export interface RequestMetrics {
  /** `route` must already be a template (or `unmatched`), never a raw path. */
  record(method: string | undefined, route: string, status: number, seconds: number): void;
}

export function createRequestMetrics(client: typeof PromClient, register: Registry): RequestMetrics {
  const labelNames = ['method', 'route', 'status'] as const;
  const requests = new client.Counter({
    name: 'plant_store_http_requests_total',
    help: 'HTTP requests answered, by method, route template and status.',
    labelNames,
    registers: [register],
  });
  const durations = new client.Histogram({
    name: 'plant_store_http_request_duration_seconds',
    help: 'Time from receiving a request to finishing its response, by method, route template and status.',
    labelNames,
    buckets: [...REQUEST_DURATION_BUCKETS],
    registers: [register],
  });
  return {
    record(method, route, status, seconds) {
      const labels = { method: method !== undefined && METHODS.has(method) ? method : 'OTHER', route, status: String(status) };
      requests.inc(labels);
      durations.observe(labels, seconds);
    },
  };
}
