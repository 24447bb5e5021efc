/**
 * Milliseconds to wait according to a `Retry-After` header (RFC 9110 §10.2.3):
 * either delay-seconds or an HTTP date. `undefined` when absent or
 * unparseable; never negative (a date in the past means "now").
 */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // Only accept date-looking text: Date.parse is lenient with odd inputs ("1.5", "-3").
  if (!/[a-z]/i.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}
