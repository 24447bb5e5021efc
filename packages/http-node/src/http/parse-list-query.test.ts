import { describe, expect, it } from 'vitest';
import { ValidationError } from '@plant-store/core';
import { parseListQuery } from './parse-list-query.js';

const failure = (query: string) => {
  try {
    parseListQuery(query);
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return { field: (error as ValidationError).field, message: (error as ValidationError).message };
  }
  throw new Error(`expected ${query} to be refused`);
};

describe('parseListQuery', () => {
  it('reads limit, after and repeated tags', () => {
    expect(parseListQuery('')).toEqual({});
    expect(parseListQuery('limit=10&after=-9223372036854775808&tag=a&tag=b')).toEqual({
      limit: 10,
      after: -9223372036854775808n,
      tags: ['a', 'b'],
    });
    expect(parseListQuery('limit=2147483647&after=9223372036854775807')).toEqual({ limit: 2147483647, after: 9223372036854775807n });
    expect(parseListQuery('limit=0')).toEqual({ limit: 0 });
  });

  it('decodes form-encoded values', () => {
    expect(parseListQuery('tag=a+b%26c&tag=%F0%9F%8C%B5')).toEqual({ tags: ['a b&c', '🌵'] });
    expect(parseListQuery('limit=%31%30')).toEqual({ limit: 10 });
  });

  it('keeps empty tag values for the core to refuse', () => {
    expect(parseListQuery('tag=&tag')).toEqual({ tags: ['', ''] });
  });

  it('ignores unknown parameters and empty pairs', () => {
    expect(parseListQuery('foo=bar&&=x&limit=1&LIMIT=abc&l%69mit=abc')).toEqual({ limit: 1 });
  });

  it.each(['limit=', 'limit', 'limit=-1', 'limit=1.0', 'limit=1e2', 'limit=+1', 'limit=2147483648', 'limit=12345678901', 'limit=%zz', 'limit=1&limit=1'])(
    'refuses %s naming limit',
    (query) => {
      expect(failure(query)).toMatchObject({ field: 'limit', message: expect.stringMatching(/^limit /) });
    },
  );

  it.each(['after=', 'after', 'after=1.5', 'after=x', 'after=9223372036854775808', 'after=-9223372036854775809', 'after=1&after=2', 'after=--1'])(
    'refuses %s naming after',
    (query) => {
      expect(failure(query)).toMatchObject({ field: 'after', message: expect.stringMatching(/^after /) });
    },
  );

  it('refuses a tag that is not valid percent-encoded UTF-8', () => {
    expect(failure('tag=%E2%82')).toMatchObject({ field: 'tag', message: expect.stringMatching(/^tag /) });
  });
});
