import { isLosslessNumber, parse, stringify, type LosslessNumber } from 'lossless-json';
import { int64FromDecimal } from '../domain/int64.js';
import { parseFlatObject } from './parse-flat-object.js';
import { scanJson } from './scan-json.js';

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
 * Throws `SyntaxError` on malformed JSON, and its subclass
 * `JsonDuplicateKeyError` when an object names a key twice, at any depth:
 * whatever else the text holds, the same text always gets the same answer.
 *
 * The commonest body, one flat object of plain values, is parsed directly.
 * Other text is scanned once for duplicate keys and for a number literal
 * that needs the exact (slower) parser; text with only plain short integers
 * goes to `JSON.parse`, which reads those exactly. Digits inside strings
 * (URLs, versions) do not count.
 */
export function parseJson(text: string): unknown {
  const flat = parseFlatObject(text);
  if (flat !== undefined) return flat;
  let exact: boolean;
  try {
    exact = scanJson(text);
  } catch (error) {
    JSON.parse(text); // malformed text is reported as such, whatever the scan made of it
    throw error;
  }
  return exact ? parse(text, null, parseExactNumber) : JSON.parse(text);
}

/** Stringifies JSON with `bigint` written as its exact digits. */
export function stringifyJson(value: unknown): string {
  const text = stringify(value);
  if (text === undefined) throw new TypeError('value cannot be represented as JSON');
  return text;
}
