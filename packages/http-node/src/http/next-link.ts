/** The RFC 8288 `Link` header value of the next page: a relative reference, `<basePath><path>?name=value&…>; rel="next"`. */
export function nextLink(basePath: string, path: string, params: readonly (readonly [string, string | number | bigint])[]): string {
  const query = params.map(([name, value]) => `${name}=${encodeURIComponent(String(value))}`).join('&');
  return `<${basePath}${path}?${query}>; rel="next"`;
}
