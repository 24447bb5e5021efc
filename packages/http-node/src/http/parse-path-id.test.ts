import { describe, expect, it } from 'vitest';
import { ValidationError } from '@plant-store/core';
import { parsePlantId } from './parse-path-id.js';

describe('parsePlantId', () => {
  it.each([
    ['0', 0n],
    ['-0', 0n],
    ['007', 7n],
    ['9223372036854775807', 9223372036854775807n],
    ['-9223372036854775808', -9223372036854775808n],
    ['%34%32', 42n],
  ])('reads %s', (segment, id) => {
    expect(parsePlantId(segment)).toBe(id);
  });

  it.each(['', 'abc', '1.5', '1e3', '+1', ' 1', '0x1', '9223372036854775808', '-9223372036854775809', '%', '%E2%82', '1%2F2', '1'.repeat(40)])(
    'refuses %j naming id',
    (segment) => {
      expect(() => parsePlantId(segment)).toThrow(ValidationError);
      try {
        parsePlantId(segment);
      } catch (error) {
        expect((error as ValidationError).field).toBe('id');
        expect((error as ValidationError).message).toMatch(/^id must be an integer/);
      }
    },
  );
});
