/** Milliseconds to wait by a `Retry-After` header (delay-seconds or an HTTP date); `undefined` when absent or unparseable. */
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
