import { describe, expect, it } from 'vitest';
import { hexWord, spanIdHex, SpanIds, TraceId } from './span-ids.js';

/** The 8 hex digits of a word, as the encoder writes its bytes (big-endian). */
const wordHex = (word: number) => (word >>> 0).toString(16).padStart(8, '0');

describe('SpanIds', () => {
  it('gives each id hex digits that are its words, across refills of the pool', () => {
    const ids = new SpanIds();
    const seen = new Set<string>();
    // A pool holds 8 KiB: 5,000 draws of 8 and 16 bytes refill it several times, at every alignment.
    for (let draw = 0; draw < 5_000; draw++) {
      const traceId = ids.traceId();
      expect(traceId.hex).toBe([traceId.w0, traceId.w1, traceId.w2, traceId.w3].map(wordHex).join(''));
      const at = ids.spanId();
      const hex = spanIdHex(ids.digits, 2 * at);
      expect(hex).toBe(wordHex(ids.word(at)) + wordHex(ids.word(at + 4)));
      expect(hex).not.toBe('0000000000000000');
      seen.add(hex);
    }
    expect(seen.size).toBe(5_000);
  });

  it('keeps a trace id’s hex when the pool it came from is refilled', () => {
    const ids = new SpanIds();
    const first = ids.traceId();
    const words = [first.w0, first.w1, first.w2, first.w3];
    for (let draw = 0; draw < 2_000; draw++) ids.spanId();
    expect(first.hex).toBe(words.map(wordHex).join(''));
  });
});

describe('TraceId.fromHex', () => {
  it('reads the words of a traceparent’s id and keeps its digits', () => {
    const hex = '4bf92f3577b34da6a3ce929d0e0e4736';
    const id = TraceId.fromHex(hex);
    expect([id.w0, id.w1, id.w2, id.w3].map(wordHex).join('')).toBe(hex);
    expect(id.hex).toBe(hex);
    expect(hexWord('00f067aa0ba902b7', 8)).toBe(0x0ba902b7);
  });
});
