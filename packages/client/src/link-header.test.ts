import { describe, expect, it } from 'vitest';
import { nextLinkTarget } from './link-header.js';

describe('nextLinkTarget', () => {
  it.each([
    ['</plants?limit=1&after=-5>; rel="next"', '/plants?limit=1&after=-5'],
    ['<https://x.example/a>; rel=next', 'https://x.example/a'],
    ['</first>; rel="first", </b?c=1>; title="x"; REL="prev next"', '/b?c=1'],
    ['</a?tag=a%2Cb>; rel="next"', '/a?tag=a%2Cb'],
  ])('finds the next link in %s', (header, target) => {
    expect(nextLinkTarget(header)).toBe(target);
  });

  it.each([null, '', '</a>; rel="prev"', '</a>', '</a>; rel="nextpage"'])('finds none in %j', (header) => {
    expect(nextLinkTarget(header)).toBeUndefined();
  });
});
