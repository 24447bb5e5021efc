import { errorFromResponse, RequestFailedError } from './errors.js';
import { parseJson, stringifyJson } from './json-codec.js';

/** How the client reaches the service. */
export interface PlantStoreClientOptions {
  /** Where the service is, e.g. `http://127.0.0.1:8080`; a path is kept as a prefix (`https://example.com/plant-store` → `…/plant-store/plants`). */
  readonly baseUrl: string | URL;
  /** Bearer token sent on every request; a function is called before each one, for tokens that expire (JWT). */
  readonly token: string | (() => string | Promise<string>);
  /** The fetch to use (a test double, a fetch with a proxy agent, …). @default globalThis.fetch */
  readonly fetch?: typeof fetch;
  /** Extra headers sent on every request (e.g. `user-agent`); `authorization` and `content-type` stay the client's own. @default {} */
  readonly headers?: Readonly<Record<string, string>>;
}

export interface CallOptions {
  /** Aborts the request (and a streamed list) when signalled; the abort reason is thrown as is. */
  readonly signal?: AbortSignal;
}

/** A query parameter: left out when undefined, repeated for an array. */
export type QueryValue = string | number | bigint | readonly string[] | undefined;

export interface SendOptions extends CallOptions {
  /** Serialized with exact bigints and sent as `application/json`. */
  readonly body?: unknown;
}

/** The error for a response that does not have the documented shape. */
export function invalidResponse(response: Response, message: string, cause?: unknown): RequestFailedError {
  return responseError(response, 'invalid_response', message, cause);
}

/** The error for a body that stopped arriving (connection cut, reset), unless the caller aborted: then its reason. */
export function bodyFailure(response: Response, error: unknown, signal: AbortSignal | undefined): unknown {
  if (signal?.aborted) return signal.reason;
  return responseError(response, 'network', `the response body was cut off: ${(error as Error)?.message ?? error}`, error);
}

function responseError(response: Response, code: 'invalid_response' | 'network', message: string, cause: unknown): RequestFailedError {
  return new RequestFailedError(code, message, { status: response.status, requestId: response.headers.get('x-request-id') ?? undefined, cause });
}

/** The one place that talks HTTP: URLs, auth header, JSON, and turning failures into typed errors. */
export class HttpTransport {
  readonly #options: PlantStoreClientOptions;
  readonly #base: URL;
  // Bound: a browser's fetch throws "Illegal invocation" when called as a method of another object.
  readonly #fetch: typeof fetch;

  constructor(options: PlantStoreClientOptions) {
    this.#options = options;
    this.#base = new URL(options.baseUrl);
    this.#fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  }

  /** The URL of an API path (`/plants`) under the base URL's path, with query parameters. */
  url(path: string, query: Readonly<Record<string, QueryValue>> = {}): URL {
    const url = new URL(this.#base);
    url.pathname = this.#base.pathname.replace(/\/+$/, '') + path;
    url.search = '';
    url.hash = '';
    for (const [name, value] of Object.entries(query)) {
      for (const item of Array.isArray(value) ? value : value === undefined ? [] : [value]) url.searchParams.append(name, String(item));
    }
    return url;
  }

  /** Resolves with a 2xx response; rejects with the typed error for anything else. */
  async send(method: string, url: URL, { body, signal }: SendOptions = {}): Promise<Response> {
    const { token } = this.#options;
    const headers = new Headers(this.#options.headers);
    headers.set('authorization', `Bearer ${typeof token === 'function' ? await token() : token}`);
    if (body !== undefined) headers.set('content-type', 'application/json');
    let response: Response;
    try {
      response = await this.#fetch(url, { method, headers, body: body === undefined ? undefined : stringifyJson(body), signal });
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      throw new RequestFailedError('network', `${method} ${url.pathname} failed: ${(error as Error)?.message ?? error}`, { status: 0, cause: error });
    }
    if (!response.ok) throw await errorFromResponse(response);
    return response;
  }

  /** `send`, then the body parsed exactly (no lossy `JSON.parse`) and read by `read`; `invalid_response` when it is not JSON or `read` returns undefined. */
  async sendForJson<T>(method: string, url: URL, read: (value: unknown) => T | undefined, options?: SendOptions): Promise<T> {
    const response = await this.send(method, url, options);
    const what = `${method} ${url.pathname}`;
    let value: unknown;
    try {
      value = parseJson(await response.text());
    } catch (error) {
      throw error instanceof SyntaxError
        ? invalidResponse(response, `${what}: the response is not valid JSON`, error)
        : bodyFailure(response, error, options?.signal);
    }
    const result = read(value);
    if (result === undefined) throw invalidResponse(response, `${what}: the response does not have the documented shape`);
    return result;
  }

  async sendAndDiscard(method: string, url: URL, options?: SendOptions): Promise<void> {
    const response = await this.send(method, url, options);
    await response.body?.cancel();
  }
}
