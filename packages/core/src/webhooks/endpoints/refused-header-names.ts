// Which custom header names a tenant endpoint may not set, and why: the one
// list that validation, the OpenAPI description and the docs all read.

/** Header names the service sets itself on every attempt (and every `webhook-*`, Standard Webhooks' own): an endpoint's would replace them. */
export const RESERVED_HEADER_NAMES: readonly string[] = Object.freeze([
  'content-type',
  'content-length', // the exact length of the signed body
  'host', // the endpoint URL's
  'user-agent',
  'traceparent',
  'tracestate',
  'plant-store-event',
]);

/**
 * Header names that govern the connection or how the request is framed, not the message (and every `proxy-*`, addressed
 * to a proxy: an egress proxy sees only the service's own CONNECT): hop-by-hop headers, `trailer` and `expect`, owned by the HTTP client.
 * Sent by an endpoint they break every attempt: Node's client throws for `trailer` on a body of known length, a
 * receiver rejects a `transfer-encoding` beside the length, a fetch-based transport (undici) refuses `connection`,
 * `keep-alive`, `transfer-encoding`, `upgrade` and `expect`, and `te`, `upgrade` or `http2-settings` ask the
 * receiver for a coding or protocol switch the client does not follow.
 */
export const CONNECTION_HEADER_NAMES: readonly string[] = Object.freeze([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'http2-settings',
  'expect',
]);

/** Why an endpoint may not send the header `name` (any case), as the end of a message naming it; `undefined` when it may. */
export function refusedHeaderReason(name: string): string | undefined {
  const lower = name.toLowerCase();
  // Each names the rule that refused it, so a user sees why this name and not only that it is refused.
  if (lower.startsWith('webhook-')) return "is set by the service (every webhook-* header is Standard Webhooks' own)";
  if (RESERVED_HEADER_NAMES.includes(lower)) return `is set by the service on every attempt (as are ${RESERVED_HEADER_NAMES.join(', ')})`;
  const owned = "governs the connection or the request's framing, which the service's HTTP client owns";
  if (lower.startsWith('proxy-')) return `${owned} (every proxy-* header is addressed to a proxy)`;
  if (CONNECTION_HEADER_NAMES.includes(lower)) return `${owned} (as do ${CONNECTION_HEADER_NAMES.join(', ')})`;
  return undefined;
}

/** Why an endpoint's stored headers cannot be sent (one stored before its name was refused), naming the first such header; `undefined` when they can. */
export function unsendableHeaders(headers: Readonly<Record<string, string>> | undefined): string | undefined {
  for (const name of Object.keys(headers ?? {})) {
    const reason = refusedHeaderReason(name);
    if (reason !== undefined) return `headers.${name} ${reason}; replace the endpoint's headers`;
  }
  return undefined;
}
