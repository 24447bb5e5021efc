// Anything else (node:http accepts a few dozen methods) is `OTHER`, so a
// client cannot add series by inventing methods.
const METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** The requests of one (method, route, status): their number, total duration and durations per bucket. */
export interface RequestSeries {
  readonly labels: { readonly method: string; readonly route: string; readonly status: string };
  count: number;
  /** Seconds. */
  sum: number;
  /** Requests per bucket, not cumulative: slot i counts durations ≤ bounds[i] and > bounds[i − 1]; the last slot those above every bound. */
  readonly buckets: number[];
}

/**
 * Request counts and durations in plain numbers. Recording one request is a
 * few map and array lookups and increments: prom-client's own `inc` and
 * `observe` build label strings and hash them on every call, which cost a
 * measurable share of a request (see the metrics benchmark), so its metrics
 * read these tallies at scrape time instead.
 */
export class RequestTallies {
  readonly bounds: readonly number[];
  // route → method → status → series; labels are few, so every series is kept.
  readonly #index = new Map<string, Map<string, RequestSeries[]>>();
  readonly #all: RequestSeries[] = [];

  /** `bounds`: bucket upper bounds in seconds, ascending. */
  constructor(bounds: readonly number[]) {
    this.bounds = bounds;
  }

  /** Counts one request; `route` must be a template (or `unmatched`), never a raw path. */
  record(method: string | undefined, route: string, status: number, seconds: number): void {
    const methodLabel = method !== undefined && METHODS.has(method) ? method : 'OTHER';
    let byMethod = this.#index.get(route);
    if (byMethod === undefined) this.#index.set(route, (byMethod = new Map()));
    let byStatus = byMethod.get(methodLabel);
    if (byStatus === undefined) byMethod.set(methodLabel, (byStatus = []));
    const series = byStatus[status] ?? (byStatus[status] = this.#add(methodLabel, route, status));
    series.count++;
    series.sum += seconds;
    const bounds = this.bounds;
    let bucket = 0;
    while (bucket < bounds.length && seconds > bounds[bucket]!) bucket++;
    series.buckets[bucket]!++;
  }

  /** Every series recorded so far, in first-seen order. */
  series(): readonly RequestSeries[] {
    return this.#all;
  }

  #add(method: string, route: string, status: number): RequestSeries {
    const series: RequestSeries = {
      labels: { method, route, status: String(status) },
      count: 0,
      sum: 0,
      buckets: new Array<number>(this.bounds.length + 1).fill(0),
    };
    this.#all.push(series);
    return series;
  }
}
