import { describe, expect, it } from 'vitest';
import { formatDuration, MAX_DURATION_MS, parseDuration, parseDurationList } from './parse-duration.js';

describe('parseDuration', () => {
  it.each([
    ['0ms', 0],
    ['250ms', 250],
    ['5s', 5_000],
    ['1.5s', 1_500],
    ['5m', 300_000],
    ['30m', 1_800_000],
    ['2h', 7_200_000],
    [' 10h ', 36_000_000],
  ])('reads %j as %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['', '5', 's', '5 s', '5sec', '-5s', '5S', '1e3ms', '5s5m', 'abc', '.5s'])('rejects %j', (text) => {
    expect(parseDuration(text)).toBeUndefined();
  });

  it('rejects durations that Node timers cannot hold', () => {
    expect(parseDuration(`${MAX_DURATION_MS}ms`)).toBe(MAX_DURATION_MS);
    expect(parseDuration(`${MAX_DURATION_MS + 1}ms`)).toBeUndefined();
    expect(parseDuration('1000h')).toBeUndefined();
  });
});

describe('parseDurationList', () => {
  it('reads the default retry schedule', () => {
    expect(parseDurationList('5s,5m,30m,2h,5h,10h,10h')).toEqual([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]);
  });

  it('accepts spaces around items and "none" for no retries', () => {
    expect(parseDurationList('10ms, 20ms ,30ms')).toEqual([10, 20, 30]);
    expect(parseDurationList('none')).toEqual([]);
  });

  it('rejects a list with any bad item', () => {
    expect(parseDurationList('5s,,5m')).toBeUndefined();
    expect(parseDurationList('5s,5')).toBeUndefined();
    expect(parseDurationList('')).toBeUndefined();
  });
});

describe('formatDuration', () => {
  it.each([
    [300_000, '5m'],
    [36_000_000, '10h'],
    [15_000, '15s'],
    [1_500, '1500ms'],
    [0, '0ms'],
  ])('%i ms is %s, and parses back', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
    expect(parseDuration(text)).toBe(ms);
  });
});

describe('parseDuration: days and longer limits', () => {
  it('reads days, and accepts durations above a timer only under a larger max', () => {
    expect(parseDuration('5d')).toBe(432_000_000);
    expect(parseDuration('1.5d')).toBe(129_600_000);
    expect(parseDuration('30d')).toBeUndefined();
    expect(parseDuration('30d', Number.MAX_SAFE_INTEGER)).toBe(2_592_000_000);
  });
});
