import { describe, expect, it } from 'vitest';
import type { WebhookSendOutcome } from '../ports/webhook-transport.js';
import { RetryPolicy } from './retry-policy.js';

const NOW = 1_700_000_000_000;
const exact = (schedule: number[], maxRetryAfterMs?: number) => new RetryPolicy({ retrySchedule: schedule, jitter: 0, maxRetryAfterMs });
const retry = (reason: string, extra: Partial<Extract<WebhookSendOutcome, { kind: 'retry' }>> = {}): WebhookSendOutcome => ({
  kind: 'retry',
  reason,
  ...extra,
});

describe('RetryPolicy', () => {
  it('counts delivered as delivered, whatever the schedule', () => {
    expect(exact([10]).decide(1, { kind: 'delivered', statusCode: 204 }, NOW)).toEqual({ outcome: { status: 'delivered' } });
    expect(exact([]).decide(9, { kind: 'delivered' }, NOW)).toEqual({ outcome: { status: 'delivered' } });
  });

  it('retries on the schedule, then fails, keeping the reason for the log', () => {
    const policy = exact([10, 20, 30]);
    expect(policy.decide(1, retry('receiver answered 500', { statusCode: 500 }), NOW)).toEqual({
      outcome: { status: 'pending', nextAttemptAt: NOW + 10 },
      error: 'receiver answered 500',
    });
    expect(policy.decide(2, retry('timeout after 5 ms'), NOW).outcome).toEqual({ status: 'pending', nextAttemptAt: NOW + 20 });
    expect(policy.decide(3, retry('x'), NOW).outcome).toEqual({ status: 'pending', nextAttemptAt: NOW + 30 });
    expect(policy.decide(4, retry('receiver answered 500'), NOW)).toEqual({ outcome: { status: 'failed' }, error: 'receiver answered 500' });
    expect(exact([]).decide(1, retry('x'), NOW).outcome).toEqual({ status: 'failed' });
  });

  it('stops at once on gone and on failed', () => {
    expect(exact([10, 20]).decide(1, { kind: 'gone', reason: 'receiver answered 410 Gone', statusCode: 410 }, NOW)).toEqual({
      outcome: { status: 'failed' },
      error: 'receiver answered 410 Gone',
    });
    expect(exact([10, 20]).decide(1, { kind: 'failed', reason: 'unsupported protocol ftp:' }, NOW)).toEqual({
      outcome: { status: 'failed' },
      error: 'unsupported protocol ftp:',
    });
  });

  it('waits until the time the receiver asked for, capped, and never less than the schedule', () => {
    const policy = exact([10, 20], 60_000);
    expect(policy.decide(1, retry('busy', { notBefore: NOW + 2_000 }), NOW).outcome).toEqual({ status: 'pending', nextAttemptAt: NOW + 2_000 });
    expect(policy.decide(1, retry('busy', { notBefore: NOW + 3_600_000 }), NOW).outcome).toEqual({ status: 'pending', nextAttemptAt: NOW + 60_000 });
    expect(policy.decide(1, retry('busy', { notBefore: NOW + 5 }), NOW).outcome).toEqual({ status: 'pending', nextAttemptAt: NOW + 10 });
    expect(policy.decide(1, retry('busy', { notBefore: NOW - 5_000 }), NOW).outcome).toEqual({ status: 'pending', nextAttemptAt: NOW + 10 });
    // Asking for later does not add attempts beyond the schedule.
    expect(policy.decide(3, retry('busy', { notBefore: NOW + 1_000 }), NOW).outcome).toEqual({ status: 'failed' });
    // The default cap is one hour.
    expect(exact([10]).decide(1, retry('busy', { notBefore: NOW + 7_200_000 }), NOW).outcome).toEqual({ status: 'pending', nextAttemptAt: NOW + 3_600_000 });
  });

  it('spreads delays by the jitter fraction, never below zero', () => {
    const low = new RetryPolicy({ retrySchedule: [1_000], jitter: 0.1, random: () => 0 });
    const high = new RetryPolicy({ retrySchedule: [1_000], jitter: 0.1, random: () => 0.999999 });
    expect(low.decide(1, retry('x'), NOW).outcome).toEqual({ status: 'pending', nextAttemptAt: NOW + 900 });
    expect(high.decide(1, retry('x'), NOW).outcome).toEqual({ status: 'pending', nextAttemptAt: NOW + 1_100 });
    const wild = new RetryPolicy({ retrySchedule: [1_000], jitter: 5, random: () => 0 });
    expect(wild.decide(1, retry('x'), NOW).outcome).toEqual({ status: 'pending', nextAttemptAt: NOW });
    const seen = new Set<number>();
    const real = new RetryPolicy({ retrySchedule: [10_000] });
    for (let i = 0; i < 50; i++) {
      const outcome = real.decide(1, retry('x'), NOW).outcome;
      if (outcome.status !== 'pending') throw new Error('expected pending');
      const delay = outcome.nextAttemptAt - NOW;
      expect(delay).toBeGreaterThanOrEqual(9_000);
      expect(delay).toBeLessThanOrEqual(11_000);
      seen.add(delay);
    }
    expect(seen.size).toBeGreaterThan(1);
  });
});
