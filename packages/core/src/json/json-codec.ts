import { isLosslessNumber, parse, stringify, type LosslessNumber } from 'lossless-json';
import { int64FromDecimal } from '../domain/int64.js';

/**
 * A JSON number that is not an exact int64: a fraction, or an integer
 * beyond int64. Kept as its literal text so validation can say what is wrong
 * instead of silently rounding it.
 */
export type InexactNumber = LosslessNumber;

/** True for numbers the codec could not represent exactly as number or bigint. */
export function isInexactNumber(value: unknown): value is InexactNumber {
  return isLosslessNumber(value);
}

// Any JSON text without a fraction, an exponent or a 16+ digit run holds only
// integers below 10^15, which JSON.parse represents exactly. Strings may trip
// the test too; they then just take the (slower) lossless path.
const NEEDS_LOSSLESS = /\d[.eE]|\d{16}/;

function parseExactNumber(text: string): unknown {
  const integer = int64FromDecimal(text);
  if (integer === undefined) return parse(text); // LosslessNumber of the literal
  return integer >= BigInt(Number.MIN_SAFE_INTEGER) && integer <= BigInt(Number.MAX_SAFE_INTEGER)
    ? Number(integer)
    : integer;
}

/**
 * Parses JSON without losing numeric information: integers in the int64
 * range become `number` when safe and `bigint` otherwise, in any spelling
 * (`2e1`, `20.0`); every other number stays an {@link InexactNumber}.
 * Throws `SyntaxError` on malformed JSON.
 */
export function parseJson(text: string): unknown {
  if (!NEEDS_LOSSLESS.test(text)) return JSON.parse(text);
  return parse(text, null, parseExactNumber);
}

/** Stringifies JSON with `bigint` written as its exact digits. */
export function stringifyJson(value: unknown): string {
  const text = stringify(value);
  if (text === undefined) throw new TypeError('value cannot be represented as JSON');
  return text;
}
