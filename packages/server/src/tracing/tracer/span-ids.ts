import { randomFillSync } from 'node:crypto';

/**
 * A trace id as four 32-bit words (big-endian order, as signed integers,
 * which V8 keeps unboxed), shared by every span of the trace in this
 * process: the encoder writes the words, the ratio sampler reads them, and
 * the hex form is made only when something asks for it (a log line, a
 * `traceparent`).
 */
export class TraceId {
  #hex: string | undefined;

  constructor(
    readonly w0: number,
    readonly w1: number,
    readonly w2: number,
    readonly w3: number,
    hex?: string,
  ) {
    this.#hex = hex;
  }

  /** The id from its 32 hex digits (as a `traceparent` carries it). */
  static fromHex(hex: string): TraceId {
    return new TraceId(hexWord(hex, 0), hexWord(hex, 8), hexWord(hex, 16), hexWord(hex, 24), hex);
  }

  get hex(): string {
    return (this.#hex ??= traceIdHex(this.w0, this.w1, this.w2, this.w3));
  }
}

/** The 32-bit word of 8 hex digits at `start` of `hex`, as a signed integer. */
export function hexWord(hex: string, start: number): number {
  let word = 0;
  for (let index = start; index < start + 8; index++) {
    const code = hex.charCodeAt(index);
    // 0-9, a-f, A-F.
    word = (word << 4) | (code <= 0x39 ? code - 0x30 : (code | 0x20) - 0x57);
  }
  return word | 0;
}

// The hex digits' character codes, and the one of the 4 bits of `word` at `shift`.
const DIGITS = Uint8Array.from('0123456789abcdef', (digit) => digit.charCodeAt(0));
const d = (word: number, shift: number): number => DIGITS[(word >>> shift) & 15]!;

/**
 * The 16 hex digits of a span id's two words. Made in one `fromCharCode`,
 * a flat string at once: about half the time of writing the words into a
 * buffer and reading it back as hex, and a span's ids are made on every
 * request that is traced (for its log line, and for a span left out of the
 * samples, its context).
 */
export function spanIdHex(high: number, low: number): string {
  return String.fromCharCode(
    d(high, 28), d(high, 24), d(high, 20), d(high, 16), d(high, 12), d(high, 8), d(high, 4), d(high, 0),
    d(low, 28), d(low, 24), d(low, 20), d(low, 16), d(low, 12), d(low, 8), d(low, 4), d(low, 0),
  );
}

/**
 * The 32 hex digits of a trace id's four words, in one `fromCharCode` (see
 * `spanIdHex`): two span ids joined would be a string of two parts, which
 * everything reading it character by character (the log line's check of
 * its ids) reads the slow way, or flattens first.
 */
function traceIdHex(w0: number, w1: number, w2: number, w3: number): string {
  return String.fromCharCode(
    d(w0, 28), d(w0, 24), d(w0, 20), d(w0, 16), d(w0, 12), d(w0, 8), d(w0, 4), d(w0, 0),
    d(w1, 28), d(w1, 24), d(w1, 20), d(w1, 16), d(w1, 12), d(w1, 8), d(w1, 4), d(w1, 0),
    d(w2, 28), d(w2, 24), d(w2, 20), d(w2, 16), d(w2, 12), d(w2, 8), d(w2, 4), d(w2, 0),
    d(w3, 28), d(w3, 24), d(w3, 20), d(w3, 16), d(w3, 12), d(w3, 8), d(w3, 4), d(w3, 0),
  );
}

/**
 * Random trace and span id words, from a pool of random bytes refilled
 * 8 KiB at a time: one call into the system's generator per few hundred
 * spans instead of one per id. An all-zero id is invalid in W3C trace
 * context, so one (a chance in 2^64 or less) is drawn again.
 */
export class SpanIds {
  readonly #pool = new Int32Array(2048);
  #next = this.#pool.length;

  traceId(): TraceId {
    for (;;) {
      const id = new TraceId(this.word(), this.word(), this.word(), this.word());
      if ((id.w0 | id.w1 | id.w2 | id.w3) !== 0) return id;
    }
  }

  /** One random word; a span id is two, drawn again by the caller when both are zero. */
  word(): number {
    if (this.#next === this.#pool.length) {
      randomFillSync(this.#pool);
      this.#next = 0;
    }
    return this.#pool[this.#next++]!;
  }
}
