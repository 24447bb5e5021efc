import { PlantStoreClientError } from './errors.js';
import { bodyFailure, invalidResponse, type HttpTransport } from './http-transport.js';
import { jsonArrayElements } from './json-array-stream.js';
import { parseJson } from './json-codec.js';
import { nextLinkTarget } from './link-header.js';

/** The error for a list response whose body will not be read: its connection is released. */
function refusal(response: Response, message: string, cause?: unknown): PlantStoreClientError {
  void response.body?.cancel().catch(() => {});
  return invalidResponse(response, message, cause);
}

/**
 * The next page's URL: the Link target's query on the requested path (a base URL's prefix behind a proxy is kept).
 * A Link to another origin is refused: the bearer token never leaves the configured origin.
 */
function nextPageUrl(response: Response, requested: URL): URL | undefined {
  const target = nextLinkTarget(response.headers.get('link'));
  if (target === undefined) return undefined;
  let resolved: URL;
  try {
    resolved = new URL(target, requested);
  } catch (error) {
    throw refusal(response, `the Link header holds an invalid URL: ${target}`, error);
  }
  if (resolved.origin !== requested.origin) throw refusal(response, `refusing to follow a Link to another origin (${resolved.origin})`);
  const next = new URL(requested);
  next.search = resolved.search;
  return next;
}

/** The items of one list response, read and checked one by one as they arrive. */
async function* readItems<T>(response: Response, url: URL, read: (value: unknown) => T | undefined, signal?: AbortSignal): AsyncGenerator<T> {
  if (response.body === null) throw invalidResponse(response, `GET ${url.pathname}: the response has no body`);
  try {
    for await (const text of jsonArrayElements(response.body)) {
      const item = read(parseJson(text));
      if (item === undefined) throw invalidResponse(response, `GET ${url.pathname}: an element does not have the documented shape`);
      yield item;
    }
  } catch (error) {
    if (error instanceof PlantStoreClientError) throw error;
    if (error instanceof SyntaxError) throw invalidResponse(response, `GET ${url.pathname}: ${error.message}`, error);
    throw bodyFailure(response, error, signal);
  }
}

/** One page: every item of the response at `url` under `key`, and in `next` the next page's query read by `readNext` (absent on the last page). */
export async function fetchPage<K extends string, T, Q>(
  transport: HttpTransport,
  url: URL,
  key: K,
  read: (value: unknown) => T | undefined,
  readNext: (query: URLSearchParams) => Q | undefined,
  signal?: AbortSignal,
): Promise<Record<K, T[]> & { readonly next?: Q }> {
  const response = await transport.send('GET', url, { signal });
  const nextUrl = nextPageUrl(response, url);
  const next = nextUrl === undefined ? undefined : readNext(nextUrl.searchParams);
  if (nextUrl !== undefined && next === undefined) throw refusal(response, `GET ${url.pathname}: the next-page Link lacks a valid cursor (${nextUrl.search})`);
  const items: T[] = [];
  for await (const item of readItems(response, url, read, signal)) items.push(item);
  const page = { [key]: items } as Record<K, T[]>;
  return next === undefined ? page : { ...page, next };
}

/** Every item from `url` on, following `Link` page by page, yielded as they arrive; the next page is requested only when reached. */
export async function* followPages<T>(transport: HttpTransport, url: URL, read: (value: unknown) => T | undefined, signal?: AbortSignal): AsyncGenerator<T> {
  let current: URL | undefined = url;
  while (current !== undefined) {
    const response = await transport.send('GET', current, { signal });
    const next = nextPageUrl(response, current);
    yield* readItems(response, current, read, signal);
    current = next;
  }
}
