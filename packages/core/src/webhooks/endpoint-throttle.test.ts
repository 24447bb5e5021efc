import { describe, expect, it } from 'vitest';
import type { RateBudgetAnswer } from '../ports/webhook-outbox.js';
import { EndpointThrottle } from './endpoint-throttle.js';

describe('EndpointThrottle', () => {
  it('without a shared budget, admits rateLimit attempts per window of its own', () => {
    const throttle = new EndpointThrottle();
    expect([0, 10, 20, 30].map((at) => throttle.admit('ep_a', 3, at))).toEqual([true, true, true, false]);
    expect(throttle.blocked(500)).toEqual(['ep_a']);
    expect(throttle.nextOpening()).toBe(1_000);
    expect(throttle.admit('ep_a', 3, 1_000)).toBe(true);
    expect(throttle.admit('ep_b', undefined, 0)).toBe(true);
  });

  it('with a shared budget, lets it decide, and asks it nothing more once it said the window is full', async () => {
    const asked: number[] = [];
    let left = 2;
    const throttle = new EndpointThrottle(async (_endpointId, _rateLimit, now): Promise<RateBudgetAnswer> => {
      asked.push(now);
      const admitted = left > 0;
      if (admitted) left--;
      return { admitted, windowEnd: 2_000, exhausted: left === 0 };
    });
    expect(await throttle.admit('ep_a', 2, 1_100)).toBe(true);
    expect(await throttle.admit('ep_a', 2, 1_200)).toBe(true);
    expect(await throttle.admit('ep_a', 2, 1_300)).toBe(false);
    expect(asked).toEqual([1_100, 1_200]);
    expect(throttle.blocked(1_500)).toEqual(['ep_a']);
    expect(throttle.windowEnd('ep_a')).toBe(2_000);
    expect(throttle.blocked(2_000)).toEqual([]);
    await throttle.admit('ep_a', 2, 2_000);
    expect(asked).toEqual([1_100, 1_200, 2_000]);
  });

  it('admits nothing for a window when the shared budget cannot be read', async () => {
    const throttle = new EndpointThrottle(async () => {
      throw new Error('connection lost');
    });
    expect(await throttle.admit('ep_a', 5, 1_000)).toBe(false);
    expect(throttle.blocked(1_999)).toEqual(['ep_a']);
    expect(throttle.nextOpening()).toBe(2_000);
  });
});
