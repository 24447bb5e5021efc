import { describe, expect, it } from 'vitest';
import { ResponseSnippet } from './response-snippet.js';

const snippet = (max: number, ...chunks: string[]) => {
  const kept = new ResponseSnippet(max);
  for (const chunk of chunks) kept.add(Buffer.from(chunk, 'utf8'));
  return kept;
};

describe('ResponseSnippet', () => {
  it('keeps a short body whole, across chunks; an empty one is undefined', () => {
    expect(snippet(8, 'ab', 'cd').text()).toBe('abcd');
    expect(snippet(8, 'abcdefgh').text()).toBe('abcdefgh');
    expect(snippet(8).text()).toBeUndefined();
    expect(snippet(8, '').text()).toBeUndefined();
  });

  it('cuts at the byte limit, never inside a character', () => {
    expect(snippet(4, 'abcdef').text()).toBe('abcd');
    // 'é' is 2 bytes: a cut after 'abc' + the first byte of 'é' backs off to 'abc'.
    expect(snippet(4, 'abcé').text()).toBe('abc');
    expect(snippet(5, 'abcé!').text()).toBe('abcé');
    // A 4-byte character straddling the limit is left out whole.
    expect(snippet(6, 'ab🌵cd').text()).toBe('ab🌵');
    expect(snippet(5, 'ab🌵cd').text()).toBe('ab');
    expect(Buffer.byteLength(snippet(1024, 'é'.repeat(2000)).text()!)).toBe(1024);
    expect(Buffer.byteLength(snippet(1024, `x${'é'.repeat(2000)}`).text()!)).toBe(1023);
  });

  it('keeps no more than the limit and one byte, however much arrives', () => {
    const kept = new ResponseSnippet(4);
    for (let i = 0; i < 1000; i++) kept.add(Buffer.alloc(1024 * 1024, 0x61));
    expect(kept.full).toBe(true);
    expect(kept.text()).toBe('aaaa');
  });
});
