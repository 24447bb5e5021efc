import { randomFillSync } from 'node:crypto';

/**
 * A trace id as four 32-bit words (big-endian order, as signed integers,
 * which V8 keeps unboxed), shared by every span of the trace in this
 * process: the encoder writes the words, the ratio sampler reads them, and
 * the hex form is cut from the digits it was drawn with only when something
 * asks for it (a log line, a `traceparent`).
 */
export class TraceId {
  readonly #digits: string;
  readonly #at: number;
  #hex: string | undefined;

  /** `digits` holds the id's 32 hex digits from `at`. */
  constructor(
    readonly w0: number,
    readonly w1: number,
    readonly w2: number,
    readonly w3: number,
    digits: string,
    at: number,
  ) {
    this.#digits = digits;
    this.#at = at;
  }

  /** The id from its 32 hex digits (as a `traceparent` carries it). */
  static fromHex(hex: string): TraceId {
    return new TraceId(hexWord(hex, 0), hexWord(hex, 8), hexWord(hex, 16), hexWord(hex, 24), hex, 0);
  }

  get hex(): string {
    return (this.#hex ??= this.#digits.slice(this.#at, this.#at + 32));
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

/** A span id's 16 hex digits, cut from a pool's digits (see `SpanIds.digits`) where they start. */
export function spanIdHex(digits: string, start: number): string {
  return digits.slice(start, start + 16);
}

const POOL_BYTES = 8192;

/**
 * Random trace and span ids, drawn from a pool of random bytes refilled
 * 8 KiB at a time, with the pool's hex digits made in the same step (one
 * native conversion per few hundred ids): an id's words are read from the
 * bytes, and its hex form, wanted on every traced request (the log line,
 * a `traceparent`), is a slice of the digits, which V8 makes without
 * copying where writing 16 or 32 digits one by one cost a few hundred
 * instructions an id. A slice keeps its pool's digits (16 KiB) alive while
 * it lives, which is a request's time: a delivery's stamped `traceparent`,
 * kept longer, is written out by the SQL storages and copied flat by the
 * memory storage before it keeps it.
 * An all-zero id is invalid in W3C trace context, so one (a chance in
 * 2^64 or less) is drawn again.
 */
export class SpanIds {
  readonly #bytes = Buffer.allocUnsafe(POOL_BYTES);
  readonly #view = new DataView(this.#bytes.buffer, this.#bytes.byteOffset, POOL_BYTES);
  #next = POOL_BYTES;
  #digits = '';

  /** The pool's hex digits: those of the byte at `n` start at `2n`. */
  get digits(): string {
    return this.#digits;
  }

  traceId(): TraceId {
    for (;;) {
      const at = this.#take(16);
      const view = this.#view;
      const id = new TraceId(view.getInt32(at), view.getInt32(at + 4), view.getInt32(at + 8), view.getInt32(at + 12), this.#digits, 2 * at);
      if ((id.w0 | id.w1 | id.w2 | id.w3) !== 0) return id;
    }
  }

  /**
   * Draws a span id: the offset of its 8 bytes in the pool, whose words
   * `word` reads and whose 16 hex digits start at twice the offset in
   * `digits`, until the next id is drawn.
   */
  spanId(): number {
    for (;;) {
      const at = this.#take(8);
      if ((this.#view.getInt32(at) | this.#view.getInt32(at + 4)) !== 0) return at;
    }
  }

  /** The big-endian word at byte `at` of the pool. */
  word(at: number): number {
    return this.#view.getInt32(at);
  }

  #take(size: number): number {
    if (this.#next + size > POOL_BYTES) {
      randomFillSync(this.#bytes);
      this.#digits = this.#bytes.toString('hex');
      this.#next = 0;
    }
    const at = this.#next;
    this.#next += size;
    return at;
  }
}
