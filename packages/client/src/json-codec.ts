import { parse, stringify } from 'lossless-json';

const INTEGER = /^-?\d+$/;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);

// Without a run of 16 digits every number is one JSON.parse reads exactly: most responses take this fast path.
const MAY_LOSE_PRECISION = /\d{16}/;

/** Parses a response body without losing digits: an integer beyond 2^53 becomes a `bigint`, any other number a `number`; `SyntaxError` when malformed. */
export function parseJson(text: string): unknown {
  if (!MAY_LOSE_PRECISION.test(text)) return JSON.parse(text);
  return parse(text, null, (number) => {
    if (!INTEGER.test(number)) return Number(number);
    const integer = BigInt(number);
    return integer >= MIN_SAFE && integer <= MAX_SAFE ? Number(integer) : integer;
  });
}

/** Writes JSON with a `bigint` as its exact digits; `undefined` properties are left out, as by JSON.stringify. */
export function stringifyJson(value: unknown): string {
  const text = stringify(value);
  if (text === undefined) throw new TypeError('value cannot be represented as JSON');
  return text;
}
