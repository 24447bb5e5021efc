import { describe, expect, it } from 'vitest';
import { RequestTallies } from './request-tallies.js';

describe('RequestTallies', () => {
  it('puts a duration in the first bucket whose bound it does not exceed (bounds are inclusive), above all in the last slot', () => {
    const tallies = new RequestTallies([0.01, 0.1]);
    for (const seconds of [0, 0.01, 0.010001, 0.1, 0.5, 7]) tallies.record('GET', '/plants', 200, seconds);
    expect(tallies.series()).toEqual([
      { labels: { method: 'GET', route: '/plants', status: '200' }, count: 6, sum: expect.closeTo(7.620001, 9), buckets: [2, 2, 2] },
    ]);
  });

  it('keeps one series per method, route and status, folding unknown methods into OTHER', () => {
    const tallies = new RequestTallies([1]);
    tallies.record('GET', '/plants', 200, 0);
    tallies.record('GET', '/plants', 404, 0);
    tallies.record('POST', '/plants', 200, 0);
    tallies.record('GET', '/plants/{id}', 200, 0);
    tallies.record('PROPFIND', 'unmatched', 405, 0);
    tallies.record(undefined, 'unmatched', 405, 0);
    tallies.record('GET', '/plants', 200, 0);
    expect(tallies.series().map((series) => [series.labels.method, series.labels.route, series.labels.status, series.count])).toEqual([
      ['GET', '/plants', '200', 2],
      ['GET', '/plants', '404', 1],
      ['POST', '/plants', '200', 1],
      ['GET', '/plants/{id}', '200', 1],
      ['OTHER', 'unmatched', '405', 2],
    ]);
  });
});
