/** U+0000 (PostgreSQL's text refuses it) and unpaired surrogates (not encodable as UTF-8). */
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * Text every storage holds as given: a receiver's answer may carry any bytes, and one a storage refused would fail the
 * attempt's record, so the delivery would be sent again at every lease. What text cannot hold is shown as a `\uXXXX` escape.
 */
export function storableText(text: string): string {
  return text.replace(UNSTORABLE, (unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
