import { describe, expect, it } from 'vitest';
import { httpStatusOutcome } from './http-status-outcome.js';

const NOW = 1_700_000_000_000;

describe('httpStatusOutcome', () => {
  it('counts every 2xx as delivered', () => {
    for (const statusCode of [200, 201, 202, 204, 299]) {
      expect(httpStatusOutcome(statusCode, undefined, NOW)).toEqual({ kind: 'delivered', statusCode });
    }
  });

  it('retries other statuses, saying what the receiver answered', () => {
    expect(httpStatusOutcome(500, undefined, NOW)).toEqual({ kind: 'retry', statusCode: 500, reason: 'receiver answered 500' });
    expect(httpStatusOutcome(404, undefined, NOW)).toEqual({ kind: 'retry', statusCode: 404, reason: 'receiver answered 404' });
    expect(httpStatusOutcome(199, undefined, NOW)).toMatchObject({ kind: 'retry' });
  });

  it('treats a redirect as a failure to retry, saying it was not followed', () => {
    const outcome = httpStatusOutcome(301, undefined, NOW);
    expect(outcome).toMatchObject({ kind: 'retry', statusCode: 301 });
    expect(outcome.kind !== 'delivered' && outcome.reason).toMatch(/301.*not followed/);
  });

  it('stops on 410 Gone', () => {
    expect(httpStatusOutcome(410, '5', NOW)).toMatchObject({ kind: 'gone', statusCode: 410, reason: expect.stringMatching(/410/) });
  });

  it('turns Retry-After on 429 and 503 into a time not to retry before, and ignores it elsewhere', () => {
    expect(httpStatusOutcome(429, '2', NOW)).toMatchObject({ kind: 'retry', statusCode: 429, notBefore: NOW + 2_000 });
    expect(httpStatusOutcome(503, new Date(NOW + 30_000).toUTCString(), NOW)).toMatchObject({ kind: 'retry', notBefore: NOW + 30_000 });
    // Not capped here: the cap is core's retry policy.
    expect(httpStatusOutcome(503, '86400', NOW)).toMatchObject({ notBefore: NOW + 86_400_000 });
    expect(httpStatusOutcome(500, '2', NOW)).not.toHaveProperty('notBefore');
    expect(httpStatusOutcome(429, 'soon', NOW)).not.toHaveProperty('notBefore');
    expect(httpStatusOutcome(429, undefined, NOW)).not.toHaveProperty('notBefore');
  });
});
