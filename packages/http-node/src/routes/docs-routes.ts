import type { IncomingHttpHeaders } from 'node:http';
import type { DocsFiles } from '../docs/docs-files.js';
import type { Exchange } from './route-context.js';

// The API reference page needs no credentials, like the document it renders:
// its "Authorize" dialog takes the bearer token for the calls made from it.

/**
 * `GET <base>/docs` and `GET <base>/docs/<file>`: one file of the API
 * reference page, from memory. Gzip when the client accepts it, 304 when its
 * `If-None-Match` holds the current ETag. `path` must be one `files.has` accepts.
 */
export async function docsFile(files: DocsFiles, exchange: Exchange, path: string): Promise<void> {
  const file = await files.load(path);
  const representation = file.gzip !== undefined && acceptsGzip(exchange.req.headers) ? file.gzip : file.identity;
  const headers = [
    'etag',
    representation.etag,
    'cache-control',
    file.cacheControl,
    'vary',
    'accept-encoding',
    'x-content-type-options',
    'nosniff',
    'x-request-id',
    exchange.requestId,
  ];
  if (matches(exchange.req.headers['if-none-match'], representation.etag)) {
    exchange.res.writeHead(304, headers);
    exchange.res.end();
    return;
  }
  headers.push('content-type', file.contentType, 'content-length', String(representation.body.length), ...file.headers);
  if (representation !== file.identity) headers.push('content-encoding', 'gzip');
  exchange.res.writeHead(200, headers);
  // node:http sends no body for HEAD.
  exchange.res.end(representation.body);
}

/** True when `accept-encoding` accepts gzip: named with a non-zero q, or else through `*` with a non-zero q. */
function acceptsGzip(headers: IncomingHttpHeaders): boolean {
  const accept = headers['accept-encoding'];
  if (accept === undefined) return false;
  let any = false;
  for (const item of accept.split(',')) {
    const [coding = '', ...parameters] = item.split(';').map((part) => part.trim().toLowerCase());
    const q = parameters.find((parameter) => parameter.startsWith('q='));
    const accepted = q === undefined || Number(q.slice(2)) > 0;
    if (coding === 'gzip') return accepted;
    if (coding === '*') any = accepted;
  }
  return any;
}

/** `If-None-Match` (a list of ETags, weak or strong, or `*`) holds this ETag: weak comparison, as RFC 9110 asks for GET. */
function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  return ifNoneMatch.split(',').some((item) => {
    const tag = item.trim();
    return tag === '*' || tag === etag || tag === `W/${etag}`;
  });
}
