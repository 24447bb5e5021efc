import { describe, expect, it } from 'vitest';
import { nextLink } from './next-link.js';

describe('nextLink', () => {
  it('points at the next page with the same limit', () => {
    expect(
      nextLink('', '/plants', [
        ['limit', 10],
        ['after', -9223372036854775808n],
      ]),
    ).toBe('</plants?limit=10&after=-9223372036854775808>; rel="next"');
  });

  it('keeps repeated parameters, percent-encoded', () => {
    expect(
      nextLink('', '/plants', [
        ['limit', 2],
        ['after', 5n],
        ['tag', 'a b'],
        ['tag', 'x&y=z'],
        ['tag', '🌵'],
      ]),
    ).toBe('</plants?limit=2&after=5&tag=a%20b&tag=x%26y%3Dz&tag=%F0%9F%8C%B5>; rel="next"');
  });

  it('carries the base path', () => {
    expect(
      nextLink('/api/v1', '/webhooks/endpoints', [
        ['limit', 1],
        ['after', 'ep_x-Y_z'],
      ]),
    ).toBe('</api/v1/webhooks/endpoints?limit=1&after=ep_x-Y_z>; rel="next"');
  });
});
