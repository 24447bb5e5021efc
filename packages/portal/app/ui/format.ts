// How values are shown on the page.

/** A time in the reader's locale, e.g. "25/11/2026, 17:42:05". */
export function formatTime(date: Date): string {
  return date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
}

/** A success rate of 0..1 as a percentage; "no attempts" when there were none. */
export function formatRate(rate: number | null, succeeded: number, failed: number): string {
  if (rate === null) return 'no attempts';
  const percent = Math.round(rate * 1000) / 10;
  return `${percent}% (${succeeded} of ${succeeded + failed})`;
}

/** What a verification key is called: an Ed25519 endpoint's receiver holds a public key (`whpk_`), an HMAC one a secret. */
export function verificationKeyLabel(key: string): string {
  return key.startsWith('whpk_') ? 'Public key' : 'Signing secret';
}

const BIGINT_MARK = '\u0000bigint:';

/** JSON, indented, with bigints written as their exact digits (JSON.stringify refuses them; a Number would round ids past 2^53). */
export function prettyJson(value: unknown): string {
  const text = JSON.stringify(value, (_key, item: unknown) => (typeof item === 'bigint' ? `${BIGINT_MARK}${item}` : item), 2);
  return text.replace(/"\\u0000bigint:(-?\d+)"/g, '$1');
}

/** The value of a `datetime-local` field as a Date (the reader's time zone); undefined when empty or invalid. */
export function dateFromLocalInput(value: string): Date | undefined {
  if (value === '') return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** A Date as a `datetime-local` value in the reader's time zone (minutes precision). */
export function localInputValue(date: Date): string {
  const local = new Date(date.getTime() - date.getTimezoneOffset() * 60_000);
  return local.toISOString().slice(0, 16);
}
