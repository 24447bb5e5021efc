/**
 * The RFC 8288 `Link` header value pointing at the next page of a keyset
 * listing: `<basePath><path>?name=value&…>; rel="next"`. `params` are the
 * query parameters in order (repeat a name for a repeatable parameter);
 * values are percent-encoded. The target is a relative reference, resolved
 * against the request URL, and carries the base path the API is mounted on.
 */
export function nextLink(basePath: string, path: string, params: readonly (readonly [string, string | number | bigint])[]): string {
  const query = params.map(([name, value]) => `${name}=${encodeURIComponent(String(value))}`).join('&');
  return `<${basePath}${path}?${query}>; rel="next"`;
}
