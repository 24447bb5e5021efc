import { describe, expect, it } from 'vitest';
import * as client from 'prom-client';
import { createRequestMetrics } from './request-metrics.js';

function setup() {
  const register = new client.Registry();
  return { register, requests: createRequestMetrics(client, register) };
}

/** Every sample of one metric as `labels → value`, labels written `k=v,…` in a fixed order. */
async function samples(register: ReturnType<typeof setup>['register'], name: string): Promise<Record<string, number>> {
  const metric = await register.getSingleMetric(name)!.get();
  const out: Record<string, number> = {};
  for (const { labels, value, metricName } of metric.values as { labels: Record<string, string | number>; value: number; metricName?: string }[]) {
    const key = [
      metricName ?? name,
      ...Object.keys(labels)
        .sort()
        .map((label) => `${label}=${labels[label]}`),
    ].join(' ');
    out[key] = value;
  }
  return out;
}

describe('createRequestMetrics', () => {
  it('counts requests by method, route and status, and times them in the same label sets', async () => {
    const { register, requests } = setup();
    requests.record('GET', '/plants', 200, 0.0004);
    requests.record('GET', '/plants', 200, 0.003);
    requests.record('POST', '/plants', 201, 0.02);
    requests.record('GET', '/plants/{id}', 404, 2);
    expect(await samples(register, 'plant_store_http_requests_total')).toEqual({
      'plant_store_http_requests_total method=GET route=/plants status=200': 2,
      'plant_store_http_requests_total method=POST route=/plants status=201': 1,
      'plant_store_http_requests_total method=GET route=/plants/{id} status=404': 1,
    });
    const histogram = await samples(register, 'plant_store_http_request_duration_seconds');
    const series = 'method=GET route=/plants status=200';
    expect(histogram[`plant_store_http_request_duration_seconds_count ${series}`]).toBe(2);
    expect(histogram[`plant_store_http_request_duration_seconds_sum ${series}`]).toBeCloseTo(0.0034, 10);
    expect(histogram[`plant_store_http_request_duration_seconds_bucket le=0.0005 ${series}`]).toBe(1);
    expect(histogram[`plant_store_http_request_duration_seconds_bucket le=0.001 ${series}`]).toBe(1);
    expect(histogram[`plant_store_http_request_duration_seconds_bucket le=0.005 ${series}`]).toBe(2);
    expect(histogram[`plant_store_http_request_duration_seconds_bucket le=1 method=GET route=/plants/{id} status=404`]).toBe(0);
    expect(histogram[`plant_store_http_request_duration_seconds_bucket le=2.5 method=GET route=/plants/{id} status=404`]).toBe(1);
  });

  it('renders the text format through the registry: cumulative buckets, +Inf, sum and count per series', async () => {
    const { register, requests } = setup();
    requests.record('GET', '/plants', 200, 0.0004);
    requests.record('GET', '/plants', 200, 30);
    const text = await register.metrics();
    const series = 'method="GET",route="/plants",status="200"';
    expect(text).toContain('# TYPE plant_store_http_request_duration_seconds histogram');
    expect(text).toContain(`plant_store_http_request_duration_seconds_bucket{le="0.0005",${series}} 1`);
    expect(text).toContain(`plant_store_http_request_duration_seconds_bucket{le="10",${series}} 1`);
    expect(text).toContain(`plant_store_http_request_duration_seconds_bucket{le="+Inf",${series}} 2`);
    expect(text).toContain(`plant_store_http_request_duration_seconds_sum{${series}} 30.0004`);
    expect(text).toContain(`plant_store_http_request_duration_seconds_count{${series}} 2`);
    expect(text).toContain(`# TYPE plant_store_http_requests_total counter`);
    expect(text).toContain(`plant_store_http_requests_total{${series}} 2`);
    // Scraping twice does not double anything.
    expect(await register.metrics()).toBe(text);
  });

  it('folds unknown and missing methods into OTHER, so a client cannot add series by inventing methods', async () => {
    const { register, requests } = setup();
    for (const method of ['PROPFIND', 'MKCOL', 'get', undefined]) requests.record(method, 'unmatched', 404, 0.001);
    expect(await samples(register, 'plant_store_http_requests_total')).toEqual({
      'plant_store_http_requests_total method=OTHER route=unmatched status=404': 4,
    });
  });

  it('keeps each registry to itself', async () => {
    const first = setup();
    const second = setup();
    first.requests.record('GET', '/healthz', 200, 0.001);
    expect(await samples(first.register, 'plant_store_http_requests_total')).toEqual({
      'plant_store_http_requests_total method=GET route=/healthz status=200': 1,
    });
    expect(await samples(second.register, 'plant_store_http_requests_total')).toEqual({});
  });
});
