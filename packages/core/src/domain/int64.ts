/** Smallest and largest plant ids: the whole signed 64-bit range. */
export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;

const ZERO = 0x30;
const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/**
 * The exact value of a JSON number literal when it is an integer inside the
 * int64 range, else undefined. Works on the text, so `2e1`, `20.0` and
 * `-0` are all integers and `9223372036854775807` keeps every digit.
 * Never allocates more than the literal: `1e999999999` is rejected by digit
 * count, not by building the number.
 */
export function int64FromDecimal(text: string): bigint | undefined {
  const match = DECIMAL.exec(text);
  if (!match) return undefined;
  const [, sign, whole = '', fraction = '', exponentText = '0'] = match;
  const all = whole + fraction;
  // Significant digits by index scans, not regexes: an unanchored `/0+$/`
  // retries at every zero of `1000…0001` and made one 64 KB body cost seconds.
  let first = 0;
  while (first < all.length && all.charCodeAt(first) === ZERO) first++;
  if (first === all.length) return 0n;
  let end = all.length;
  while (all.charCodeAt(end - 1) === ZERO) end--;
  if (exponentText.length > 6) return undefined; // |exponent| ≥ 10^6 can never land in int64
  const exponent = Number(exponentText) - fraction.length + (all.length - end);
  const digits = all.slice(first, end);
  if (exponent < 0) return undefined; // a fractional part remains
  if (digits.length + exponent > 19) return undefined; // ≥ 10^19 > INT64_MAX
  const value = BigInt(digits) * 10n ** BigInt(exponent) * (sign === '-' ? -1n : 1n);
  return value < INT64_MIN || value > INT64_MAX ? undefined : value;
}

/** Parses a plain decimal integer (`-?\d+`, as in paths and query strings) into int64, else undefined. */
export function int64FromInteger(text: string): bigint | undefined {
  if (!/^-?\d{1,30}$/.test(text)) return undefined;
  const value = BigInt(text);
  return value < INT64_MIN || value > INT64_MAX ? undefined : value;
}
