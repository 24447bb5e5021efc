/** The token of an `Authorization: Bearer <token>` header, or `undefined` when it is absent or malformed. */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  // node:http has already trimmed surrounding whitespace from the value.
  if (header.length < 8 || header.charCodeAt(6) !== 0x20) return undefined;
  if (header.slice(0, 6).toLowerCase() !== 'bearer') return undefined;
  let start = 7;
  while (start < header.length && header.charCodeAt(start) === 0x20) start++;
  const token = header.slice(start);
  if (token === '' || /\s/.test(token)) return undefined;
  return token;
}
