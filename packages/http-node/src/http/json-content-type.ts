/**
 * True when a `content-type` header names `application/json` (any case,
 * any parameters such as `charset=utf-8`). Structured suffixes like
 * `application/merge-patch+json` are deliberately refused: they carry other
 * semantics, and the API only takes plain JSON.
 */
export function isJsonContentType(header: string | undefined): boolean {
  if (header === undefined) return false;
  const end = header.indexOf(';');
  const mediaType = (end === -1 ? header : header.slice(0, end)).trim();
  return mediaType.length === 16 && mediaType.toLowerCase() === 'application/json';
}
