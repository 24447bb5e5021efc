import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from './retry-after.js';
import { RetryPolicy } from './retry-policy.js';

const NOW = 1_700_000_000_000;
const exact = (schedule: number[], maxRetryAfterMs?: number) => new RetryPolicy({ schedule, jitter: 0, maxRetryAfterMs });

describe('RetryPolicy', () => {
  it('counts every 2xx as delivered', () => {
    for (const statusCode of [200, 201, 202, 204, 299]) {
      expect(exact([10]).decide(1, { statusCode }, NOW)).toEqual({ outcome: { status: 'delivered' } });
    }
  });

  it('retries other statuses and errors on the schedule, then fails', () => {
    const policy = exact([10, 20, 30]);
    expect(policy.decide(1, { statusCode: 500 }, NOW).outcome).toEqual({ status: 'pending', nextAttemptAt: NOW + 10 });
    expect(policy.decide(2, { error: 'timeout after 5ms' }, NOW)).toEqual({
      outcome: { status: 'pending', nextAttemptAt: NOW + 20 },
      error: 'timeout after 5ms',
    });
    expect(policy.decide(3, { statusCode: 404 }, NOW).outcome).toEqual({ status: 'pending', nextAttemptAt: NOW + 30 });
    expect(policy.decide(4, { statusCode: 500 }, NOW)).toEqual({ outcome: { status: 'failed' }, error: 'receiver answered 500' });
    expect(exact([]).decide(1, { statusCode: 500 }, NOW).outcome).toEqual({ status: 'failed' });
  });

  it('treats a redirect as a failure, saying it was not followed', () => {
    const decision = exact([10]).decide(1, { statusCode: 301 }, NOW);
    expect(decision.outcome).toEqual({ status: 'pending', nextAttemptAt: NOW + 10 });
    expect(decision.error).toMatch(/301.*not followed/);
  });

  it('stops at once on 410 Gone', () => {
    const decision = exact([10, 20]).decide(1, { statusCode: 410 }, NOW);
    expect(decision.outcome).toEqual({ status: 'failed' });
    expect(decision.error).toMatch(/410/);
  });

  it('honours Retry-After on 429 and 503, capped, and never waits less than the schedule', () => {
    const policy = exact([10, 20], 60_000);
    expect(policy.decide(1, { statusCode: 429, retryAfter: '2' }, NOW).outcome).toEqual({ status: 'pending', nextAttemptAt: NOW + 2_000 });
    expect(policy.decide(1, { statusCode: 503, retryAfter: '3600' }, NOW).outcome).toEqual({ status: 'pending', nextAttemptAt: NOW + 60_000 });
    const date = new Date(NOW + 30_000).toUTCString();
    expect(policy.decide(1, { statusCode: 503, retryAfter: date }, NOW).outcome).toEqual({ status: 'pending', nextAttemptAt: NOW + 30_000 });
    expect(policy.decide(1, { statusCode: 429, retryAfter: '0' }, NOW).outcome).toEqual({ status: 'pending', nextAttemptAt: NOW + 10 });
    // Only 429 and 503 are asked to wait; other statuses follow the schedule.
    expect(policy.decide(1, { statusCode: 500, retryAfter: '2' }, NOW).outcome).toEqual({ status: 'pending', nextAttemptAt: NOW + 10 });
    // Retry-After does not add attempts beyond the schedule.
    expect(policy.decide(3, { statusCode: 429, retryAfter: '1' }, NOW).outcome).toEqual({ status: 'failed' });
  });

  it('spreads delays by the jitter fraction, never below zero', () => {
    const low = new RetryPolicy({ schedule: [1_000], jitter: 0.1, random: () => 0 });
    const high = new RetryPolicy({ schedule: [1_000], jitter: 0.1, random: () => 0.999999 });
    expect(low.decide(1, { statusCode: 500 }, NOW).outcome).toEqual({ status: 'pending', nextAttemptAt: NOW + 900 });
    expect(high.decide(1, { statusCode: 500 }, NOW).outcome).toEqual({ status: 'pending', nextAttemptAt: NOW + 1_100 });
    const wild = new RetryPolicy({ schedule: [1_000], jitter: 5, random: () => 0 });
    expect(wild.decide(1, { statusCode: 500 }, NOW).outcome).toEqual({ status: 'pending', nextAttemptAt: NOW });
    const seen = new Set<number>();
    const real = new RetryPolicy({ schedule: [10_000] });
    for (let i = 0; i < 50; i++) {
      const outcome = real.decide(1, { statusCode: 500 }, NOW).outcome;
      if (outcome.status !== 'pending') throw new Error('expected pending');
      const delay = outcome.nextAttemptAt - NOW;
      expect(delay).toBeGreaterThanOrEqual(9_000);
      expect(delay).toBeLessThanOrEqual(11_000);
      seen.add(delay);
    }
    expect(seen.size).toBeGreaterThan(1);
  });
});

describe('parseRetryAfter', () => {
  it('reads delay-seconds and HTTP dates', () => {
    expect(parseRetryAfter('120', NOW)).toBe(120_000);
    expect(parseRetryAfter(' 5 ', NOW)).toBe(5_000);
    expect(parseRetryAfter(new Date(NOW + 7_000).toUTCString(), NOW)).toBe(7_000);
    expect(parseRetryAfter(new Date(NOW - 7_000).toUTCString(), NOW)).toBe(0);
  });

  it('ignores what it cannot read', () => {
    for (const value of [undefined, '', '-5', '1.5', 'soon', '1e3', 'Mon, 99 Foo 2020']) {
      expect(parseRetryAfter(value, NOW)).toBeUndefined();
    }
  });
});
