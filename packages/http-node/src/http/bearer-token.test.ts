import { describe, expect, it } from 'vitest';
import { bearerToken } from './bearer-token.js';

describe('bearerToken', () => {
  it.each([
    ['Bearer abc', 'abc'],
    ['bearer abc', 'abc'],
    ['BEARER abc', 'abc'],
    ['Bearer   abc', 'abc'],
    ['Bearer a.b-c_d~e+f/g==', 'a.b-c_d~e+f/g=='],
  ])('reads %j', (header, token) => {
    expect(bearerToken(header)).toBe(token);
  });

  it.each([undefined, '', 'Bearer', 'Bearer ', 'Bearerabc', 'Basic abc', 'Bearer a b', 'Bearer a\tb', 'Bearer\tabc', 'Token abc', 'abc'])(
    'refuses %j',
    (header) => {
      expect(bearerToken(header)).toBeUndefined();
    },
  );
});
