import type { HrTime } from '@opentelemetry/api';

/** Protobuf's wire types, as a field's key carries them. */
export const VARINT = 0;
export const FIXED64 = 1;
export const LENGTH_DELIMITED = 2;
export const FIXED32 = 5;

/**
 * Protobuf's wire format into a growing buffer. A nested message is written
 * in place after one byte reserved for its length (`begin`), which `end`
 * fills in, moving the message up when its length needs more bytes than
 * one: a span fits in one byte's length (under 128 bytes) rarely, a move of
 * a few hundred bytes costs less than a sizing pass over everything.
 */
export class ProtobufWriter {
  buffer: Buffer;
  /** `buffer` as a `DataView`, for 32-bit words: one store each, where bytes are four. */
  view: DataView;
  pos = 0;

  constructor(buffer: Buffer) {
    this.buffer = buffer;
    this.view = viewOf(buffer);
  }

  tag(field: number, wireType: number): void {
    const key = (field << 3) | wireType;
    // Every key but field 16's fits in one byte.
    if (key < 0x80) {
      this.#room(1);
      this.buffer[this.pos++] = key;
    } else {
      this.varint(key);
    }
  }

  /** A non-negative integer up to 2^32 in the fast loop; larger and negative ones as 64-bit two's complement. */
  varint(value: number): void {
    this.#room(10);
    const buffer = this.buffer;
    if (value >= 0 && value <= 0xffffffff) {
      this.pos = writeVarint32(buffer, this.pos, value);
      return;
    }
    const magnitude = Math.abs(value);
    let low = magnitude >>> 0;
    let high = (magnitude / 0x100000000) >>> 0;
    if (value < 0) {
      low = ~low >>> 0;
      high = ~high >>> 0;
      low = (low + 1) >>> 0;
      if (low === 0) high = (high + 1) >>> 0;
    }
    while (high > 0 || low > 0x7f) {
      buffer[this.pos++] = (low & 0x7f) | 0x80;
      low = ((low >>> 7) | (high << 25)) >>> 0;
      high >>>= 7;
    }
    buffer[this.pos++] = low;
  }

  fixed32(value: number): void {
    this.#room(4);
    this.#wordLE(value);
  }

  double(value: number): void {
    this.#room(8);
    this.pos = this.buffer.writeDoubleLE(value, this.pos);
  }

  /**
   * An `HrTime` ([seconds, nanoseconds]) as unsigned 64-bit nanoseconds.
   * Seconds times 10^9 passes 2^53, so the product is taken in two parts
   * (the low 16 bits of the seconds and the rest), each exact in a double.
   */
  hrTime([seconds, nanos]: HrTime): void {
    const lowSeconds = seconds & 0xffff;
    const highSeconds = (seconds / 0x10000) >>> 0;
    const fromLow = lowSeconds * 1e9;
    const fromHigh = highSeconds * 1e9;
    const sumLow = (fromLow >>> 0) + (((fromHigh & 0xffff) * 0x10000) >>> 0) + nanos;
    const high = Math.floor(fromLow / 0x100000000) + ((fromHigh / 0x10000) >>> 0) + Math.floor(sumLow / 0x100000000);
    this.fixed64(high, sumLow);
  }

  /** An unsigned 64-bit integer given as its high and low 32 bits. */
  fixed64(high: number, low: number): void {
    this.#room(8);
    this.#wordLE(low);
    this.#wordLE(high);
  }

  string(value: string): void {
    const length = value.length;
    // Short ASCII strings (attribute keys and values, span names, routes) byte by byte after a one-byte length,
    // which is their length in characters; anything else by Node's UTF-8 encoder.
    if (length < 0x80) {
      this.#room(length + 1);
      const buffer = this.buffer;
      let at = this.pos + 1;
      for (let index = 0; index < length; index++) {
        const code = value.charCodeAt(index);
        if (code > 0x7f) {
          this.#utf8(value);
          return;
        }
        buffer[at++] = code;
      }
      buffer[this.pos] = length;
      this.pos = at;
      return;
    }
    this.#utf8(value);
  }

  /** A 64-bit id kept as two 32-bit words (high first), as 8 bytes with their length. */
  id64(high: number, low: number): void {
    this.#room(9);
    this.buffer[this.pos++] = 8;
    this.#word(high);
    this.#word(low);
  }

  /** A 128-bit id kept as four 32-bit words (highest first), as 16 bytes with their length. */
  id128(w0: number, w1: number, w2: number, w3: number): void {
    this.#room(17);
    this.buffer[this.pos++] = 16;
    this.#word(w0);
    this.#word(w1);
    this.#word(w2);
    this.#word(w3);
  }

  bytes(value: Uint8Array): void {
    this.varint(value.length);
    this.raw(value);
  }

  /** Bytes already encoded (fields of the message being written), copied as they are. */
  raw(value: Uint8Array): void {
    this.#room(value.length);
    this.buffer.set(value, this.pos);
    this.pos += value.length;
  }

  /** A trace or span id, given in hex (as the SDK keeps them), as its bytes. */
  hexBytes(hex: string): void {
    const length = hex.length >>> 1;
    if (length >= 0x80) {
      this.bytes(Buffer.from(hex, 'hex'));
      return;
    }
    this.#room(length + 1);
    const buffer = this.buffer;
    let at = this.pos;
    buffer[at++] = length;
    for (let index = 0; index < hex.length; index += 2) {
      buffer[at++] = (nibble(hex.charCodeAt(index)) << 4) | nibble(hex.charCodeAt(index + 1));
    }
    this.pos = at;
  }

  /** Reserves one byte for the length of what follows; returns where, for `end`. */
  begin(): number {
    this.#room(1);
    return this.pos++;
  }

  /** Writes the length of what was written since `begin` returned `start`, moving it up if that needs more than one byte. */
  end(start: number): void {
    const length = this.pos - start - 1;
    if (length < 0x80) {
      this.buffer[start] = length;
      return;
    }
    const extra = varintSize(length) - 1;
    this.#room(extra);
    const buffer = this.buffer;
    buffer.copyWithin(start + 1 + extra, start + 1, this.pos);
    this.pos += extra;
    writeVarint32(buffer, start, length);
  }

  #utf8(value: string): void {
    const length = Buffer.byteLength(value, 'utf8');
    this.varint(length);
    this.#room(length);
    this.pos += this.buffer.write(value, this.pos, 'utf8');
  }

  /** Makes room for `bytes` bytes and moves past them, for the caller to fill in; returns where they start. */
  skip(bytes: number): number {
    this.#room(bytes);
    const at = this.pos;
    this.pos += bytes;
    return at;
  }

  /** A 32-bit word (signed or not), big-endian as ids are written, where room was made for it. */
  #word(value: number): void {
    this.view.setInt32(this.pos, value);
    this.pos += 4;
  }

  /** A 32-bit word, little-endian (protobuf's fixed32 and the halves of fixed64), where room was made for it. */
  #wordLE(value: number): void {
    this.view.setUint32(this.pos, value, true);
    this.pos += 4;
  }

  #room(bytes: number): void {
    if (this.pos + bytes <= this.buffer.length) return;
    let size = this.buffer.length * 2;
    while (size < this.pos + bytes) size *= 2;
    const grown = Buffer.allocUnsafe(size);
    this.buffer.copy(grown, 0, 0, this.pos);
    this.buffer = grown;
    this.view = viewOf(grown);
  }
}

function viewOf(buffer: Buffer): DataView {
  return new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}

/** Writes `value` (0 to 2^32 - 1) as a varint at `at`; returns the position after it. */
function writeVarint32(buffer: Buffer, at: number, value: number): number {
  let v = value >>> 0;
  while (v > 0x7f) {
    buffer[at++] = (v & 0x7f) | 0x80;
    v >>>= 7;
  }
  buffer[at++] = v;
  return at;
}

/** A hex digit's value. */
function nibble(code: number): number {
  // 0-9, a-f, A-F.
  return code <= 0x39 ? code - 0x30 : (code | 0x20) - 0x57;
}

function varintSize(value: number): number {
  let size = 1;
  while (value >= 0x80) {
    value = Math.floor(value / 0x80);
    size++;
  }
  return size;
}
