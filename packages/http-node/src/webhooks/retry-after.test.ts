import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from './retry-after.js';

const NOW = 1_700_000_000_000;

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
