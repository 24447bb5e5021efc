import { PlantStoreClientError } from './errors.js';
import { bodyFailure, invalidResponse, type HttpTransport } from './http-transport.js';
import { jsonArrayElements } from './json-array-stream.js';
import { parseJson } from './json-codec.js';
import { nextLinkTarget } from './link-header.js';

/** Turns one parsed array element into an item, or undefined when it does not have the documented shape. */
export type ItemReader<T> = (value: unknown) => T | undefined;

/** Turns the query of a next-page Link into the caller's options, or undefined when it lacks what they need. */
export type NextQueryReader<Q> = (query: URLSearchParams) => Q | undefined;

/** One page of a list and the query of the next one (from `Link: <…>; rel="next"`), absent on the last page. */
export interface RawPage<T, Q> {
  readonly items: T[];
  readonly next?: Q;
}

/**
 * The next page's URL: the Link target's query on the requested path (a base URL's prefix behind a proxy is kept).
 * A Link to another origin is refused: the bearer token never leaves the configured origin.
 */
function nextPageUrl(response: Response, requested: URL): URL | undefined {
  try {
    return nextFromLink(response, requested);
  } catch (error) {
    // The body will not be read: release the connection.
    void response.body?.cancel().catch(() => {});
    throw error;
  }
}

function nextFromLink(response: Response, requested: URL): URL | undefined {
  const target = nextLinkTarget(response.headers.get('link'));
  if (target === undefined) return undefined;
  let resolved: URL;
  try {
    resolved = new URL(target, requested);
  } catch (error) {
    throw invalidResponse(response, `the Link header holds an invalid URL: ${target}`, error);
  }
  if (resolved.origin !== requested.origin) {
    throw invalidResponse(response, `refusing to follow a Link to another origin (${resolved.origin})`);
  }
  const next = new URL(requested);
  next.search = resolved.search;
  return next;
}

/** The items of one list response, read and checked one by one as they arrive. */
async function* readItems<T>(response: Response, url: URL, read: ItemReader<T>, signal?: AbortSignal): AsyncGenerator<T> {
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

/** One page: every item of the response at `url`, and the next page's query read by `readNext`. */
export async function fetchPage<T, Q>(
  transport: HttpTransport,
  url: URL,
  read: ItemReader<T>,
  readNext: NextQueryReader<Q>,
  signal?: AbortSignal,
): Promise<RawPage<T, Q>> {
  const response = await transport.send('GET', url, { signal });
  const nextUrl = nextPageUrl(response, url);
  const next = nextUrl === undefined ? undefined : readNext(nextUrl.searchParams);
  if (nextUrl !== undefined && next === undefined) {
    void response.body?.cancel().catch(() => {});
    throw invalidResponse(response, `GET ${url.pathname}: the next-page Link lacks a valid cursor (${nextUrl.search})`);
  }
  const items: T[] = [];
  for await (const item of readItems(response, url, read, signal)) items.push(item);
  return next === undefined ? { items } : { items, next };
}

/** Every item from `url` on, following `Link` page by page, yielded as they arrive; the next page is requested only when reached. */
export async function* followPages<T>(transport: HttpTransport, url: URL, read: ItemReader<T>, signal?: AbortSignal): AsyncGenerator<T> {
  let current: URL | undefined = url;
  while (current !== undefined) {
    const response = await transport.send('GET', current, { signal });
    const next = nextPageUrl(response, current);
    yield* readItems(response, current, read, signal);
    current = next;
  }
}
