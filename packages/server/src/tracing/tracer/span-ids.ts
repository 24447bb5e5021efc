import { randomFillSync } from 'node:crypto';

/**
 * Random trace and span ids, in hex, cut from a pool of random bytes that
 * is refilled 8 KiB at a time: one call into the system's generator per
 * few hundred spans instead of one per id. An all-zero id is invalid in
 * W3C trace context, so one (a chance in 2^64 or less) is drawn again.
 */
export class SpanIds {
  readonly #pool = Buffer.allocUnsafe(8192);
  #next = this.#pool.length;

  traceId(): string {
    return this.#hex(16);
  }

  spanId(): string {
    return this.#hex(8);
  }

  #hex(bytes: number): string {
    for (;;) {
      if (this.#next + bytes > this.#pool.length) {
        randomFillSync(this.#pool);
        this.#next = 0;
      }
      const start = this.#next;
      this.#next += bytes;
      if (!isZero(this.#pool, start, bytes)) return this.#pool.toString('hex', start, start + bytes);
    }
  }
}

function isZero(pool: Buffer, start: number, bytes: number): boolean {
  for (let index = start; index < start + bytes; index++) if (pool[index] !== 0) return false;
  return true;
}
