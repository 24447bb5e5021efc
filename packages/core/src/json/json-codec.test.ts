import { describe, expect, it } from 'vitest';
import { isInexactNumber, parseJson, stringifyJson } from './json-codec.js';

describe('parseJson', () => {
  it('parses small integers as numbers on the fast path', () => {
    expect(parseJson('{"id":42,"name":"x","n":[-1,0,123456789012345]}')).toEqual({
      id: 42,
      name: 'x',
      n: [-1, 0, 123456789012345],
    });
  });

  it('keeps integers beyond 2^53 exact as bigint', () => {
    expect(parseJson('{"id":9223372036854775807}')).toEqual({ id: 9223372036854775807n });
    expect(parseJson('[-9223372036854775808, 9007199254740993]')).toEqual([-9223372036854775808n, 9007199254740993n]);
  });

  it('turns integer spellings into their exact value', () => {
    expect(parseJson('[20.0, 2e1, -0, 1.5e3]')).toEqual([20, 20, 0, 1500]);
  });

  it('keeps fractions and out-of-range numbers as inexact literals', () => {
    const [fraction, huge, nearlyOne] = parseJson('[1.5, 1e400, 1.0000000000000001]') as unknown[];
    for (const value of [fraction, huge, nearlyOne]) expect(isInexactNumber(value)).toBe(true);
    expect(String(nearlyOne)).toBe('1.0000000000000001');
  });

  it('leaves strings that look like numbers alone', () => {
    expect(parseJson('{"name":"1.5e3 and 12345678901234567"}')).toEqual({ name: '1.5e3 and 12345678901234567' });
  });

  it('rejects malformed JSON with a SyntaxError on both paths', () => {
    expect(() => parseJson('{"id":1,')).toThrow(SyntaxError);
    expect(() => parseJson('{"id":1.5,')).toThrow(SyntaxError);
  });
});

describe('stringifyJson', () => {
  it('writes bigint as exact digits', () => {
    expect(stringifyJson({ id: -9223372036854775808n, list: [1n, 'a'] })).toBe('{"id":-9223372036854775808,"list":[1,"a"]}');
  });
});
