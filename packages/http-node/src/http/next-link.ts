/**
 * The RFC 8288 `Link` header value pointing at the next page: same limit and
 * tag filters, `after` set to the last id of this page. The target is a
 * relative reference, resolved against the request URL.
 */
export function nextLink(basePath: string, limit: number, after: bigint, tags: readonly string[] | undefined): string {
  let target = `${basePath}/plants?limit=${limit}&after=${after}`;
  if (tags !== undefined) for (const tag of tags) target += `&tag=${encodeURIComponent(tag)}`;
  return `<${target}>; rel="next"`;
}
