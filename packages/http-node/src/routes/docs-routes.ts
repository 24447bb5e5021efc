import type { IncomingHttpHeaders } from 'node:http';
import type { DocsFiles } from '../docs/docs-files.js';
import type { Exchange } from './route-context.js';

/** One file of the docs page or the portal, from memory; no credentials, like the document it renders. */
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

/** gzip named with a non-zero q, or else `*` with a non-zero q. */
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

/** Weak comparison, as RFC 9110 asks for GET. */
function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  return ifNoneMatch.split(',').some((item) => {
    const tag = item.trim();
    return tag === '*' || tag === etag || tag === `W/${etag}`;
  });
}
