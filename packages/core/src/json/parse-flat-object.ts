import { INT64_MAX, INT64_MIN } from '../domain/int64.js';

// Character codes the parser looks at.
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const MINUS = 0x2d;
const ZERO = 0x30;
const NINE = 0x39;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const SPACE = 0x20;

/** Plain integers of up to 15 digits are below 10^15 < 2^53: summed digit by digit, they are exact. */
const PLAIN_DIGITS_MAX = 15;
/** Longer integers, up to int64's 19 digits, are read as bigint. */
const INT64_DIGITS_MAX = 19;
const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** Returned for any text that is not the simple shape: the caller parses it the general way. */
const NOT_FLAT = undefined;

/**
 * Parses the commonest request body, one flat object whose values are
 * strings without escapes, integers in the int64 range written plainly (not
 * `-0`; `bigint` beyond 2^53, as the exact parser gives them), `true`,
 * `false`, `null` or an array of those, faster than scanning it and
 * then handing it to `JSON.parse`. Anything else (deeper nesting, escapes,
 * other numbers, a repeated
 * key, a key found on `Object.prototype`, malformed text) yields `undefined`
 * and the caller takes the general path, which also gives every error: so
 * this only ever answers for text `JSON.parse` reads the same way.
 */
export function parseFlatObject(text: string): Record<string, unknown> | undefined {
  const length = text.length;
  let i = skipSpace(text, 0);
  if (text.charCodeAt(i) !== OPEN_BRACE) return NOT_FLAT;
  const object: Record<string, unknown> = {};
  i = skipSpace(text, i + 1);
  if (text.charCodeAt(i) === CLOSE_BRACE) return skipSpace(text, i + 1) === length ? object : NOT_FLAT;
  for (;;) {
    if (text.charCodeAt(i) !== QUOTE) return NOT_FLAT;
    const keyEnd = stringEnd(text, i + 1);
    if (keyEnd < 0) return NOT_FLAT;
    const key = text.slice(i + 1, keyEnd);
    // A repeat, or a name the prototype has (`__proto__`, `toString`): the general path decides.
    if (object[key] !== undefined) return NOT_FLAT;
    i = skipSpace(text, keyEnd + 1);
    if (text.charCodeAt(i) !== COLON) return NOT_FLAT;
    i = skipSpace(text, i + 1);
    const value = text.charCodeAt(i) === OPEN_BRACKET ? plainArray(text, i) : plainValue(text, i);
    if (value === NOT_PLAIN) return NOT_FLAT;
    object[key] = value;
    i = skipSpace(text, valueEnd);
    const separator = text.charCodeAt(i);
    if (separator === CLOSE_BRACE) return skipSpace(text, i + 1) === length ? object : NOT_FLAT;
    if (separator !== COMMA) return NOT_FLAT;
    i = skipSpace(text, i + 1);
  }
}

/** What `plainValue` returns for anything but a plain value. */
const NOT_PLAIN = Symbol('not plain');
/** Where the value `plainValue` read last ends (a second result, without allocating a pair). */
let valueEnd = 0;

/** The array of plain values at `i` (its opening bracket), its end left in `valueEnd`; else NOT_PLAIN. */
function plainArray(text: string, i: number): unknown[] | typeof NOT_PLAIN {
  const items: unknown[] = [];
  i = skipSpace(text, i + 1);
  if (text.charCodeAt(i) === CLOSE_BRACKET) return (valueEnd = i + 1), items;
  for (;;) {
    const item = plainValue(text, i);
    if (item === NOT_PLAIN) return NOT_PLAIN;
    items.push(item);
    i = skipSpace(text, valueEnd);
    const c = text.charCodeAt(i);
    if (c === CLOSE_BRACKET) return (valueEnd = i + 1), items;
    if (c !== COMMA) return NOT_PLAIN;
    i = skipSpace(text, i + 1);
  }
}

/**
 * The plain value at `i` (a string without escapes, a plainly written
 * int64 but not -0, true, false or null), its end left in `valueEnd`; else
 * NOT_PLAIN. A number's end is checked by the caller's separator test, so
 * `1.5` or `1e3` stop there.
 */
function plainValue(text: string, i: number): unknown {
  const c = text.charCodeAt(i);
  if (c === QUOTE) {
    const end = stringEnd(text, i + 1);
    if (end < 0) return NOT_PLAIN;
    valueEnd = end + 1;
    return text.slice(i + 1, end);
  }
  if ((c >= ZERO && c <= NINE) || c === MINUS) {
    const from = c === MINUS ? i + 1 : i;
    let j = from;
    let value = 0;
    let d = 0;
    while (j < text.length && (d = text.charCodeAt(j)) >= ZERO && d <= NINE) {
      value = value * 10 + (d - ZERO);
      j++;
    }
    const digits = j - from;
    // No digits, a leading zero, or -0: not a plain integer.
    if (digits === 0 || (digits > 1 && text.charCodeAt(from) === ZERO) || (c === MINUS && digits === 1 && value === 0)) return NOT_PLAIN;
    valueEnd = j;
    if (digits <= PLAIN_DIGITS_MAX) return c === MINUS ? -value : value;
    // Longer: exact by its digits, a bigint unless safe, as the exact parser does (beyond int64: not plain).
    if (digits > INT64_DIGITS_MAX) return NOT_PLAIN;
    const integer = BigInt(text.slice(i, j));
    if (integer < INT64_MIN || integer > INT64_MAX) return NOT_PLAIN;
    return integer >= MIN_SAFE && integer <= MAX_SAFE ? Number(integer) : integer;
  }
  if (text.startsWith('true', i)) return (valueEnd = i + 4), true;
  if (text.startsWith('false', i)) return (valueEnd = i + 5), false;
  if (text.startsWith('null', i)) return (valueEnd = i + 4), null;
  return NOT_PLAIN;
}

/** The offset of the quote closing a string that starts at `from`, or -1 if it has an escape or a control character (or no end). */
function stringEnd(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) return i;
    if (c === BACKSLASH || c < SPACE) return -1;
  }
  return -1;
}

/** The offset of the first character from `i` on that is not JSON whitespace (space, tab, line feed, carriage return). */
function skipSpace(text: string, i: number): number {
  let c: number;
  while (i < text.length && ((c = text.charCodeAt(i)) === SPACE || c === 0x09 || c === 0x0a || c === 0x0d)) i++;
  return i;
}
