import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { DOCS_INIT_SCRIPT, DOCS_PAGE_HTML } from './docs-page.js';

export interface DocsRepresentation {
  readonly body: Buffer;
  /** A strong ETag (quoted) of exactly these bytes. */
  readonly etag: string;
}

export interface DocsFile {
  readonly contentType: string;
  readonly cacheControl: string;
  /** Extra response headers as a flat `[name, value, …]` list. */
  readonly headers: readonly string[];
  readonly identity: DocsRepresentation;
  /** For text files. */
  readonly gzip: DocsRepresentation | undefined;
}

/** Files by request path relative to the base path (`/docs`, `/docs/swagger-ui.css`, …). */
export interface DocsFiles {
  /** True for exactly the paths on the allow-list (`/docs/../x` is false). */
  has(path: string): boolean;
  load(path: string): Promise<DocsFile>;
}

const JS = 'text/javascript; charset=utf-8';
// swagger-ui's files change only with the package; the page and its script are revalidated (a 304 by ETag).
const REVALIDATE = 'no-cache';
const ONE_DAY = 'public, max-age=86400';

// Only this origin's scripts, styles and API calls (swagger-ui styles through the DOM, which CSP allows); icons may be data: URLs.
const PAGE_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');
/** Headers of a page of the service's own (this one, the portal): the policy above, no referrer, never framed. */
export const PAGE_HEADERS: readonly string[] = ['content-security-policy', PAGE_POLICY, 'referrer-policy', 'no-referrer', 'x-frame-options', 'DENY'];

type Source = { readonly text: string } | { readonly swaggerUi: string };

interface Entry {
  readonly source: Source;
  readonly contentType: string;
  readonly cacheControl: string;
  readonly headers?: readonly string[];
}

/** The allow-list, matched literally: files are read by these fixed names, never by anything from the request. */
const FILES: ReadonlyMap<string, Entry> = new Map<string, Entry>([
  ['/docs', { source: { text: DOCS_PAGE_HTML }, contentType: 'text/html; charset=utf-8', cacheControl: REVALIDATE, headers: PAGE_HEADERS }],
  ['/docs/docs-init.js', { source: { text: DOCS_INIT_SCRIPT }, contentType: JS, cacheControl: REVALIDATE }],
  ['/docs/swagger-ui-bundle.js', { source: { swaggerUi: 'swagger-ui-bundle.js' }, contentType: JS, cacheControl: ONE_DAY }],
  ['/docs/swagger-ui.css', { source: { swaggerUi: 'swagger-ui.css' }, contentType: 'text/css; charset=utf-8', cacheControl: ONE_DAY }],
  ['/docs/favicon-32x32.png', { source: { swaggerUi: 'favicon-32x32.png' }, contentType: 'image/png', cacheControl: ONE_DAY }],
  ['/docs/favicon-16x16.png', { source: { swaggerUi: 'favicon-16x16.png' }, contentType: 'image/png', cacheControl: ONE_DAY }],
]);

const gzipAsync = promisify(gzip);

/** The API reference page's files. swagger-ui-dist, an optional peer, is located now, so a host without it fails at once. */
export function docsFiles(): DocsFiles {
  let manifest: string;
  try {
    manifest = createRequire(import.meta.url).resolve('swagger-ui-dist/package.json');
  } catch (cause) {
    throw new Error('the /docs page (docs: true) needs the swagger-ui-dist package: install it beside @plant-store/http-node, or leave docs off', { cause });
  }
  const swaggerUiFolder = dirname(manifest);
  return preparedOnFirstUse(FILES, (entry) => prepare(entry, swaggerUiFolder));
}

/** Files served from memory, one per path of `entries`, each prepared on its first request and kept (a failure is not). */
export function preparedOnFirstUse<E>(entries: ReadonlyMap<string, E>, prepare: (entry: E) => Promise<DocsFile>): DocsFiles {
  const cache = new Map<string, Promise<DocsFile>>();
  return {
    has: (path) => entries.has(path),
    load(path) {
      const entry = entries.get(path);
      if (entry === undefined) return Promise.reject(new Error(`not a file served here: ${path}`));
      let file = cache.get(path);
      if (file === undefined) {
        file = prepare(entry);
        cache.set(path, file);
        file.catch(() => cache.delete(path));
      }
      return file;
    },
  };
}

async function prepare(entry: Entry, swaggerUiFolder: string): Promise<DocsFile> {
  const body = 'text' in entry.source ? Buffer.from(entry.source.text) : await readFile(join(swaggerUiFolder, entry.source.swaggerUi));
  return servedFile(body, entry.contentType, entry.cacheControl, entry.headers ?? []);
}

export async function servedFile(body: Buffer, contentType: string, cacheControl: string, headers: readonly string[]): Promise<DocsFile> {
  const identity = { body, etag: etagOf(body, '') };
  const text = contentType.startsWith('text/');
  const compressed = text ? await gzipAsync(body, { level: 9 }) : undefined;
  return {
    contentType,
    cacheControl,
    headers,
    identity,
    // Each representation has its own ETag, as the response varies on accept-encoding.
    gzip: compressed !== undefined && compressed.length < body.length ? { body: compressed, etag: etagOf(body, '-gzip') } : undefined,
  };
}

function etagOf(body: Buffer, suffix: string): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}${suffix}"`;
}
