import { describe, expect, it } from 'vitest';
import { sampleDelivery as delivery } from '@plant-store/core/testing';
import { releaseFirstIn, stuckLinesIn, type LineMember } from './memory-line-check.js';

const T0 = 1_700_000_000_000;

// The memory outbox never loses a due time, so its conformance suite cannot break a line: the check is tried on members built here.
const member = (id: string, createdAt: number, nextAttemptAt: number | undefined, orderingKey?: string): LineMember => ({
  message: delivery(id, { endpointId: 'ep_a', createdAt, ...(orderingKey !== undefined && { orderingKey }) }),
  nextAttemptAt,
});

describe('memory line check', () => {
  it('finds a line with nothing due or in flight and the held messages of no line, oldest first, and none of a line that has a head', () => {
    const broken = [member('b1', T0 + 5, undefined, '1'), member('b2', T0 + 6, undefined, '1')];
    const healthy = [member('h1', T0, T0, '2'), member('h2', T0 + 1, undefined, '2')];
    const unlined = [member('u1', T0 + 3, undefined), member('u2', T0 + 2, T0 + 2), member('u3', T0 + 4, undefined)];
    expect(stuckLinesIn([broken, healthy], unlined, 10)).toEqual([
      { endpointId: 'ep_a', tenant: 't', waiting: 2, oldestCreatedAt: T0 + 3 },
      { endpointId: 'ep_a', tenant: 't', orderingKey: '1', waiting: 2, oldestCreatedAt: T0 + 5 },
    ]);
    expect(stuckLinesIn([broken, healthy], unlined, 1)).toHaveLength(1);
  });

  it("makes a broken line's first message due once, and leaves a line with a head as it is", () => {
    const broken = [member('b1', T0, undefined, '1'), member('b2', T0 + 1, undefined, '1')];
    expect(releaseFirstIn(broken, T0 + 50)).toBe(true);
    expect(broken.map((m) => m.nextAttemptAt)).toEqual([T0 + 50, undefined]);
    expect(releaseFirstIn(broken, T0 + 60)).toBe(false);
    expect(broken.map((m) => m.nextAttemptAt)).toEqual([T0 + 50, undefined]);
    expect(releaseFirstIn([], T0)).toBe(false);
  });
});
