import { JsonDuplicateKeyError } from './json-duplicate-key-error.js';

// Character codes the scan looks at.
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const MINUS = 0x2d;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;
const UPPER_E = 0x45;
const LOWER_E = 0x65;
const PLUS = 0x2b;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/**
 * Integers of up to 15 digits are below 10^15 < 2^53: `JSON.parse` reads them
 * exactly. Longer ones may not be (it is cheaper to send every 16-digit one
 * down the exact path than to tell which are safe).
 */
const PLAIN_DIGITS_MAX = 15;

/**
 * Keys of an object are compared with each other in place (no strings made)
 * up to this many; past it, or on a key with an escape, the object's keys go
 * into a Set, so a huge object costs linear time, not quadratic.
 */
const LINEAR_KEYS_MAX = 8;

// Scratch state, reused: parsing is synchronous, so one scan runs at a time.
// Per nesting depth: whether it is an object (1) and where its keys start in
// `spans`; `spans` holds the open objects' keys as [start, end) pairs of
// offsets into the text. Grown on demand, shrunk back after a deep or wide text.
const SCRATCH_SIZE = 64;
let isObject = new Uint8Array(SCRATCH_SIZE);
let keysFrom = new Int32Array(SCRATCH_SIZE);
let spans = new Int32Array(SCRATCH_SIZE);
/** Per depth, the object's keys once they went into a Set; only ever non-empty while a scan runs. */
const keySets = new Map<number, Set<string>>();

/**
 * One pass over JSON text, outside strings only: throws
 * {@link JsonDuplicateKeyError} for the first object that names a key twice
 * (compared after decoding escapes, at any depth), and otherwise says whether
 * some number literal needs exact handling, that is whether it is anything
 * but a plain integer of at most 15 digits (a fraction, an exponent, more
 * digits, or `-0`). Numbers and key-like text inside strings do not count.
 *
 * It does not check the syntax: on malformed text its answer means nothing
 * (it still ends, in linear time), and a parser must say what is wrong.
 */
export function scanJson(text: string): boolean {
  let exact: boolean;
  try {
    exact = scan(text);
  } catch (error) {
    resetScratch();
    throw error;
  }
  if (keySets.size > 0 || spans.length > SCRATCH_SIZE || isObject.length > SCRATCH_SIZE) resetScratch();
  return exact;
}

function resetScratch(): void {
  keySets.clear();
  if (isObject.length > SCRATCH_SIZE) (isObject = new Uint8Array(SCRATCH_SIZE)), (keysFrom = new Int32Array(SCRATCH_SIZE));
  if (spans.length > SCRATCH_SIZE) spans = new Int32Array(SCRATCH_SIZE);
}

function scan(text: string): boolean {
  const length = text.length;
  exactSeen = false;
  let depth = 0; // 0: outside every container
  let spanTop = 0;
  let expectKey = false;
  let i = 0;
  while (i < length) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i + 1);
      if (end < 0) break; // unterminated: malformed
      if (expectKey) {
        const plain = !stringEscaped && keySets.size === 0 && spanTop + 2 <= spans.length;
        spanTop = plain ? addPlainKey(text, i + 1, end, depth, spanTop) : addKey(text, i + 1, end, stringEscaped, depth, spanTop);
        expectKey = false;
      }
      i = end + 1;
    } else if ((c >= ZERO && c <= NINE) || c === MINUS) {
      i = numberEnd(text, i, c);
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth >= isObject.length) growDepth();
      expectKey = c === OPEN_BRACE;
      isObject[depth] = expectKey ? 1 : 0;
      keysFrom[depth] = spanTop;
      i++;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      if (depth > 0) spanTop = close(depth--);
      expectKey = false;
      i++;
    } else {
      if (c === COMMA) expectKey = isObject[depth] === 1;
      i++; // whitespace, ':', the letters of true/false/null (or garbage)
    }
  }
  return exactSeen;
}

// Second results of the helpers below, kept here rather than returned in a new object each time.
/** Whether the last string `stringEnd` read had an escape. */
let stringEscaped = false;
/** Whether a number literal read so far in this scan needs exact handling. */
let exactSeen = false;

/** The offset of the quote closing the string whose text starts at `from`, or -1; sets `stringEscaped`. */
function stringEnd(text: string, from: number): number {
  let escaped = false;
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === BACKSLASH) {
      escaped = true;
      i++;
    } else if (c === QUOTE) {
      stringEscaped = escaped;
      return i;
    }
  }
  return -1;
}

/** The end of the number literal at `i` (first character `c`); sets `exactSeen` unless it is a plain integer of at most 15 digits other than -0. */
function numberEnd(text: string, i: number, c: number): number {
  const length = text.length;
  const digitsFrom = c === MINUS ? i + 1 : i;
  let j = digitsFrom;
  let d = 0;
  while (j < length && (d = text.charCodeAt(j)) >= ZERO && d <= NINE) j++;
  const digits = j - digitsFrom;
  if (j < length && (d === DOT || d === LOWER_E || d === UPPER_E)) {
    exactSeen = true;
    while (j < length && isNumberPart(text.charCodeAt(j))) j++;
  } else if (digits > PLAIN_DIGITS_MAX || (c === MINUS && digits === 1 && text.charCodeAt(digitsFrom) === ZERO)) {
    exactSeen = true;
  }
  return j > i ? j : i + 1;
}

/** Ends the container at `depth`, forgetting its keys; returns the top of `spans` as it was before it. */
function close(depth: number): number {
  if (isObject[depth] === 1 && keySets.size > 0) keySets.delete(depth);
  return keysFrom[depth]!;
}

function growDepth(): void {
  const wider = new Uint8Array(isObject.length * 2);
  wider.set(isObject);
  isObject = wider;
  const from = new Int32Array(keysFrom.length * 2);
  from.set(keysFrom);
  keysFrom = from;
}

function isNumberPart(c: number): boolean {
  return (c >= ZERO && c <= NINE) || c === DOT || c === LOWER_E || c === UPPER_E || c === PLUS || c === MINUS;
}

/** `addKey` for the common case: a key without escapes, room in `spans`, no Sets in use. */
function addPlainKey(text: string, start: number, end: number, depth: number, spanTop: number): number {
  const from = keysFrom[depth]!;
  if (spanTop - from >= 2 * LINEAR_KEYS_MAX) return addKey(text, start, end, false, depth, spanTop);
  const size = end - start;
  for (let k = from; k < spanTop; k += 2) {
    const other = spans[k]!;
    if (spans[k + 1]! - other === size && sameText(text, other, start, size)) throw new JsonDuplicateKeyError(text.slice(start, end));
  }
  spans[spanTop] = start;
  spans[spanTop + 1] = end;
  return spanTop + 2;
}

/** Records the key text[start, end) of the object at `depth`; throws if the object has it already. Returns the new top of `spans`. */
function addKey(text: string, start: number, end: number, escaped: boolean, depth: number, spanTop: number): number {
  const from = keysFrom[depth]!;
  let set = keySets.size === 0 ? undefined : keySets.get(depth);
  if (set === undefined && !escaped && spanTop - from < 2 * LINEAR_KEYS_MAX) {
    // Still compared in place: `addPlainKey` does that once `spans` has room.
    if (spanTop + 2 > spans.length) {
      const wider = new Int32Array(spans.length * 2);
      wider.set(spans);
      spans = wider;
    }
    return addPlainKey(text, start, end, depth, spanTop);
  }
  if (set === undefined) {
    // Keys compared in place so far had no escapes: their text is their value.
    set = new Set();
    for (let k = from; k < spanTop; k += 2) set.add(text.slice(spans[k]!, spans[k + 1]!));
    keySets.set(depth, set);
  }
  // A malformed escape throws a SyntaxError here, which is what the text is.
  const key: string = escaped ? JSON.parse(text.slice(start - 1, end + 1)) : text.slice(start, end);
  if (set.has(key)) throw new JsonDuplicateKeyError(key);
  set.add(key);
  return spanTop;
}

function sameText(text: string, a: number, b: number, size: number): boolean {
  for (let k = 0; k < size; k++) if (text.charCodeAt(a + k) !== text.charCodeAt(b + k)) return false;
  return true;
}
