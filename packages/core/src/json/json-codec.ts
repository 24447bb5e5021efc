import { isLosslessNumber, LosslessNumber, parse, stringify } from 'lossless-json';
import { int64FromDecimal } from '../domain/int64.js';
import { JsonDuplicateKeyError } from './json-duplicate-key-error.js';

/** A JSON number that is not an exact int64, kept as its literal text so validation can say what is wrong instead of rounding it. */
export function isInexactNumber(value: unknown): value is LosslessNumber {
  return isLosslessNumber(value);
}

function parseExactNumber(text: string): unknown {
  const integer = int64FromDecimal(text);
  if (integer === undefined) return new LosslessNumber(text);
  return integer >= BigInt(Number.MIN_SAFE_INTEGER) && integer <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(integer) : integer;
}

/**
 * Parses JSON without losing numeric information: int64 integers in any spelling (`2e1`, `20.0`) become `number` when
 * safe, else `bigint`; other numbers stay `LosslessNumber`s. `SyntaxError` on malformed JSON, and its subclass
 * `JsonDuplicateKeyError` when an object at any depth names a key twice.
 */
export function parseJson(text: string): unknown {
  // The platform's parser first: it refuses malformed text, and reads short plain integers (the usual body) exactly.
  const value: unknown = JSON.parse(text);
  if (checkKeysAndNumbers(text)) return value;
  // A fraction, an exponent, `-0` or a long integer: lossless-json reads it by its spelling. Repeats were checked above.
  return parse(text, null, { parseNumber: parseExactNumber, onDuplicateKey: () => undefined });
}

/** Longest run of digits every double holds exactly, whatever the digits. */
const EXACT_DIGITS = 15;

/**
 * One pass over `text` (valid JSON): throws {@link JsonDuplicateKeyError} for the first object that names a key
 * twice, compared after decoding escapes, and tells whether every number is an integer of at most 15 digits without
 * fraction, exponent or `-0`, which `JSON.parse` reads as lossless-json with `parseExactNumber` would.
 */
function checkKeysAndNumbers(text: string): boolean {
  // One entry per open container: an object's keys so far, or undefined for an array.
  const open: (Set<string> | undefined)[] = [];
  let expectKey = false;
  let plainNumbers = true;
  let digits = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c >= '0' && c <= '9') {
      if (++digits > EXACT_DIGITS) plainNumbers = false;
      continue;
    }
    // `e` follows a digit only in an exponent (true and false hold one after a letter).
    if (c === '.' || ((c === 'e' || c === 'E') && digits > 0) || (c === '-' && text[i + 1] === '0')) plainNumbers = false;
    digits = 0;
    if (c === '"') {
      const start = i;
      let escaped = false;
      for (i++; text[i] !== '"'; i++) if (text[i] === '\\') (escaped = true), i++;
      if (!expectKey) continue;
      const key: string = escaped ? JSON.parse(text.slice(start, i + 1)) : text.slice(start + 1, i);
      const keys = open[open.length - 1]!;
      if (keys.has(key)) throw new JsonDuplicateKeyError(key);
      keys.add(key);
      expectKey = false;
    } else if (c === '{' || c === '[') {
      expectKey = c === '{';
      open.push(expectKey ? new Set() : undefined);
    } else if (c === '}' || c === ']') {
      open.pop();
      expectKey = false;
    } else if (c === ',') {
      expectKey = open[open.length - 1] !== undefined;
    }
  }
  return plainNumbers;
}

/** Stringifies JSON with `bigint` written as its exact digits. */
export function stringifyJson(value: unknown): string {
  const text = stringify(value);
  if (text === undefined) throw new TypeError('value cannot be represented as JSON');
  return text;
}
