/** `application/json`, any case and parameters; `application/merge-patch+json` and kin carry other semantics, so are refused. */
export function isJsonContentType(header: string | undefined): boolean {
  if (header === undefined) return false;
  const end = header.indexOf(';');
  const mediaType = (end === -1 ? header : header.slice(0, end)).trim();
  return mediaType.length === 16 && mediaType.toLowerCase() === 'application/json';
}
