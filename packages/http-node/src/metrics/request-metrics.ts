import type { Registry } from 'prom-client';
import type { PromClientModule } from './prom-client-module.js';
import { RequestTallies, type RequestSeries } from './request-tallies.js';

/** Request durations in seconds: most answers take well under a millisecond, a streamed listing can take seconds. */
export const REQUEST_DURATION_BUCKETS: readonly number[] = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];

const REQUESTS = 'plant_store_http_requests_total';
const DURATION = 'plant_store_http_request_duration_seconds';
const LABEL_NAMES = ['method', 'route', 'status'] as const;

/** Counts and times requests by method, route template and status. */
export interface RequestMetrics {
  /** `route` must already be a template (or `unmatched`), never a raw path. */
  record(method: string | undefined, route: string, status: number, seconds: number): void;
}

/**
 * `plant_store_http_requests_total` and `plant_store_http_request_duration_seconds`
 * on `register`. Requests are tallied in plain numbers (see `RequestTallies`);
 * the prom-client metrics read the tallies when scraped.
 */
export function createRequestMetrics(client: PromClientModule, register: Registry): RequestMetrics {
  const tallies = new RequestTallies(REQUEST_DURATION_BUCKETS);
  new client.Counter({
    name: REQUESTS,
    help: 'HTTP requests answered, by method, route template and status.',
    labelNames: LABEL_NAMES,
    registers: [register],
    collect() {
      this.reset();
      for (const series of tallies.series()) this.inc(series.labels, series.count);
    },
  });
  register.registerMetric(talliedHistogram(client, tallies));
  return tallies;
}

/** One sample as prom-client's registry renders it: histogram samples carry their series labels as `sharedLabels`. */
interface HistogramSample {
  readonly labels: Readonly<Record<string, string | number>>;
  readonly sharedLabels: RequestSeries['labels'];
  readonly value: number;
  readonly metricName: string;
}

/**
 * A prom-client Histogram whose samples come from the tallies. prom-client
 * has no way to set a histogram's counts, only to observe one value at a
 * time; its registry renders a metric from `getForPromString()` (and
 * `get()`, the JSON form, is built on it), so that is what this overrides.
 * The end-to-end metrics test reads the result through the registry.
 */
function talliedHistogram(client: PromClientModule, tallies: RequestTallies) {
  class TalliedHistogram extends client.Histogram<(typeof LABEL_NAMES)[number]> {
    async getForPromString() {
      return { name: DURATION, help: DURATION_HELP, type: 'histogram', aggregator: 'sum', values: histogramSamples(tallies) };
    }
  }
  return new TalliedHistogram({ name: DURATION, help: DURATION_HELP, labelNames: LABEL_NAMES, buckets: [...tallies.bounds], registers: [] });
}

const DURATION_HELP = 'Time from receiving a request to finishing its response, by method, route template and status.';

function histogramSamples(tallies: RequestTallies): HistogramSample[] {
  const samples: HistogramSample[] = [];
  for (const series of tallies.series()) {
    let cumulative = 0;
    for (const [index, bound] of tallies.bounds.entries()) {
      cumulative += series.buckets[index]!;
      samples.push({ labels: { le: bound }, sharedLabels: series.labels, value: cumulative, metricName: `${DURATION}_bucket` });
    }
    samples.push({ labels: { le: '+Inf' }, sharedLabels: series.labels, value: series.count, metricName: `${DURATION}_bucket` });
    samples.push({ labels: {}, sharedLabels: series.labels, value: series.sum, metricName: `${DURATION}_sum` });
    samples.push({ labels: {}, sharedLabels: series.labels, value: series.count, metricName: `${DURATION}_count` });
  }
  return samples;
}
