import { describe, expect, it } from 'vitest';
import { nextLink } from './next-link.js';

describe('nextLink', () => {
  it('points at the next page with the same limit', () => {
    expect(nextLink('', 10, -9223372036854775808n, undefined)).toBe('</plants?limit=10&after=-9223372036854775808>; rel="next"');
  });

  it('keeps every tag filter, percent-encoded', () => {
    expect(nextLink('', 2, 5n, ['a b', 'x&y=z', '🌵'])).toBe(
      '</plants?limit=2&after=5&tag=a%20b&tag=x%26y%3Dz&tag=%F0%9F%8C%B5>; rel="next"',
    );
  });
});
