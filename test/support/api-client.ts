import { afterAll, expect } from 'vitest';
import { openapiDocument } from '@plant-store/http-node';
import { matchRoute } from '../../packages/http-node/src/routes/route-table.js';

export interface ApiRequest {
  /** Bearer token; `undefined` sends no Authorization header. */
  readonly token?: string;
  /** Raw body text or bytes; sent with `content-type: application/json` unless `headers` says otherwise. */
  readonly body?: string | Uint8Array;
  readonly headers?: Record<string, string>;
}

export interface ApiResponse {
  readonly status: number;
  readonly headers: Headers;
  /** The raw body text (compare JSON digit for digit with this). */
  readonly text: string;
  /** The body parsed with JSON.parse (ids beyond 2^53 lose precision here: use `text` for them), or undefined when empty. */
  readonly json: unknown;
}

/** One observed (method, route template, status), for checking against the OpenAPI document. */
export interface Observation {
  readonly method: string;
  readonly route: string;
  readonly status: number;
}

const observations = new Map<string, Observation>();

/**
 * Calls the API over real HTTP (fetch) and records the (method, route,
 * status) it observed, so a suite can check that every status it saw is
 * documented for its route (see `undocumentedObservations`).
 */
export async function api(baseUrl: string, method: string, path: string, request: ApiRequest = {}): Promise<ApiResponse> {
  const headers: Record<string, string> = {};
  if (request.body !== undefined) headers['content-type'] = 'application/json';
  if (request.token !== undefined) headers.authorization = `Bearer ${request.token}`;
  Object.assign(headers, request.headers);
  const url = new URL(baseUrl + path);
  const response = await fetch(url, { method, headers, body: request.body });
  const text = await response.text();
  // Classify the path the server receives: URL parsing resolves dot segments
  // (`/plants/%2e%2e` is `/`), so the raw text can name the wrong route.
  const route = routeTemplate(url.pathname);
  if (route) observations.set(`${method} ${route} ${response.status}`, { method, route, status: response.status });
  return { status: response.status, headers: response.headers, text, json: text === '' ? undefined : JSON.parse(text) };
}

/**
 * The OpenAPI path template a request path belongs to, or undefined for paths
 * the API does not have: the listener's own route table decides, so this
 * cannot drift from the router. The docs and metrics parts count as off (the
 * default document has neither).
 */
export function routeTemplate(path: string): string | undefined {
  return matchRoute(path.split('?', 1)[0]!, {})?.template;
}

/** What the HTTP parser answers before any operation runs, documented as every operation's `4XX`. */
const REFUSED = new Set([400, 408, 431]);

/**
 * Every observation so far whose status the OpenAPI document does not list
 * for that operation (the refusals above count as its `4XX`). 405 is exempt
 * (it is the answer for an operation that does not exist, documented in the
 * info description); HEAD is checked as GET.
 */
export function undocumentedObservations(): Observation[] {
  const document = openapiDocument('test');
  return [...observations.values()].filter(({ method, route, status }) => {
    if (status === 405) return false;
    const operation = document.paths[route]?.[method === 'HEAD' ? 'get' : method.toLowerCase()] as { responses: Record<string, unknown> } | undefined;
    return operation?.responses[String(status)] === undefined && !(REFUSED.has(status) && operation?.responses['4XX'] !== undefined);
  });
}

/** Fails the calling test file, after all its tests, when any status it observed is undocumented (see `undocumentedObservations`). */
export function expectObservationsDocumented(): void {
  afterAll(() => {
    expect(undocumentedObservations()).toEqual([]);
  });
}

/** How many distinct (method, route, status) were observed (lets a suite assert it checked something). */
export function observationCount(): number {
  return observations.size;
}
