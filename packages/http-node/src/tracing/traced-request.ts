import type { IncomingMessage, ServerResponse } from 'node:http';
import { context, INVALID_TRACEID, propagation, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span, type SpanOptions } from '@opentelemetry/api';

const tracer = trace.getTracer('@plant-store/http-node');

/**
 * The method as the HTTP conventions know it; any other is `_OTHER` (a raw
 * method is unbounded user input). A switch, not a `Set`: comparing a few
 * interned strings costs less than a hash lookup, on every traced request.
 */
function knownMethod(method: string | undefined): string {
  switch (method) {
    case 'GET':
    case 'POST':
    case 'DELETE':
    case 'PUT':
    case 'PATCH':
    case 'HEAD':
    case 'OPTIONS':
    case 'CONNECT':
    case 'TRACE':
      return method;
    default:
      return '_OTHER';
  }
}

/** A SERVER span's name before its route is known, and its first word after: the method, or `HTTP` for one the conventions do not know. */
function spanNameOf(method: string): string {
  return method === '_OTHER' ? 'HTTP' : method;
}

/**
 * Runs `handle` inside the request's SERVER span, continuing the caller's
 * trace when it sent one (the registered propagator reads the headers: W3C
 * `traceparent` by default). The span is named `METHOD /route` with the
 * route template (`/plants/{id}`), never a raw path: ids, tenants and query
 * strings stay out of traces as they stay out of metrics. Without an
 * OpenTelemetry SDK there is no valid span and `handle` runs untouched,
 * given no context.
 *
 * `handle` gets the span's context to pass on explicitly: it is also the
 * active one while `handle` starts, but not necessarily after an `await`
 * (the reference service's context manager does not follow promises). For
 * a span that records, it also gets the span's end, to call once with the
 * route template the router matched when the request is answered: called
 * there, not chained to `handle`'s promise, which would cost every traced
 * request a promise, a closure and a turn of the microtask queue more.
 */
export function tracedRequest(
  req: IncomingMessage,
  res: ServerResponse,
  routes: RouteSpanNames,
  handle: (traceContext: Context | undefined, serverSpan: ServerSpanEnd | undefined) => Promise<unknown>,
): Promise<unknown> {
  const parent = propagation.extract(context.active(), req.headers);
  const method = knownMethod(req.method);
  const span = tracer.startSpan(spanNameOf(method), serverSpanOptions(method, req), parent);
  const recording = span.isRecording();
  // Without an SDK the span is the no-op one, all-zero ids: nothing to trace. An SDK's spans always have valid ids, so
  // a recording span is not looked at (its trace id is not internalized: `===` with the constant is a runtime call).
  if (!recording && span.spanContext().traceId === INVALID_TRACEID) return handle(undefined, undefined);
  const traceContext = trace.setSpan(parent, span);
  // A span the sampler left out records nothing: nothing to end it with on every such request.
  if (!recording) return context.with(traceContext, handle, undefined, traceContext, undefined);
  return context.with(traceContext, handle, undefined, traceContext, new ServerSpanEnd(span, method, res, routes));
}

/**
 * The SERVER span's options: its kind and the attributes the HTTP
 * conventions ask for at creation, where a sampler can see them (the
 * method and scheme; the protocol version with them). For the common
 * requests (a known method over HTTP/1.1, plain or TLS) one frozen object
 * each, made once: a tracer may take a frozen object's attributes once for
 * all its spans, where set one by one they cost every request three calls.
 */
function serverSpanOptions(method: string, req: IncomingMessage): SpanOptions {
  const scheme = (req.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http';
  const version = req.httpVersion;
  if (method === '_OTHER' || version !== '1.1') return { kind: SpanKind.SERVER, attributes: serverAttributes(method, req, scheme, version) };
  const kept = scheme === 'http' ? HTTP_1_1 : HTTPS_1_1;
  let options = kept.get(method);
  if (options === undefined) {
    options = Object.freeze({ kind: SpanKind.SERVER, attributes: Object.freeze(serverAttributes(method, req, scheme, version)) });
    kept.set(method, options);
  }
  return options;
}

// By method: at most the nine known ones each.
const HTTP_1_1 = new Map<string, SpanOptions>();
const HTTPS_1_1 = new Map<string, SpanOptions>();

function serverAttributes(method: string, req: IncomingMessage, scheme: string, version: string): Attributes {
  const attributes: Attributes = { 'http.request.method': method };
  // A raw method is unbounded user input: only on the span of the request that sent it.
  if (method === '_OTHER') attributes['http.request.method_original'] = String(req.method);
  attributes['url.scheme'] = scheme;
  attributes['network.protocol.version'] = version;
  return attributes;
}

/** How a request's SERVER span ends: with the route the router matched and the response's status. */
export class ServerSpanEnd {
  readonly #span: Span;
  readonly #method: string;
  readonly #res: ServerResponse;
  readonly #routes: RouteSpanNames;

  constructor(span: Span, method: string, res: ServerResponse, routes: RouteSpanNames) {
    this.#span = span;
    this.#method = method;
    this.#res = res;
    this.#routes = routes;
  }

  /** Ends the span, named after `template` (`undefined`: no route matched). Called once. */
  end(template: string | undefined): void {
    const span = this.#span;
    if (!span.isRecording()) return;
    if (template !== undefined) {
      const route = this.#routes.of(template);
      span.setAttribute('http.route', route.route);
      span.updateName(route.spanName(this.#method));
    }
    const status = this.#res.statusCode;
    span.setAttribute('http.response.status_code', status);
    // The server conventions: a 5xx is the server's error, a 4xx the client's (not an error of this span).
    if (status >= 500) {
      span.setAttribute('error.type', String(status));
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    span.end();
  }
}

/**
 * The `http.route` and span names of one listener's routes: the full
 * template (base path included) and `METHOD /route`, each made once and
 * the same string after that. Made per request, they would be new strings
 * of two parts each time, which a tracer that compares or encodes them
 * has to flatten, hash and compare character by character again on every
 * span; the same string is one hash kept in it and equal to itself at
 * once. Routes and methods are a few each (the router's templates, the
 * known methods), so nothing is ever dropped.
 */
export class RouteSpanNames {
  readonly #basePath: string;
  readonly #routes = new Map<string, RouteNames>();

  constructor(basePath: string) {
    this.#basePath = basePath;
  }

  of(template: string): RouteNames {
    let names = this.#routes.get(template);
    if (names === undefined) this.#routes.set(template, (names = new RouteNames(`${this.#basePath}${template}`)));
    return names;
  }
}

class RouteNames {
  readonly route: string;
  readonly #spanNames = new Map<string, string>();

  constructor(route: string) {
    this.route = route;
  }

  /** The span name of a request with `method` (a known method or `_OTHER`) to this route. */
  spanName(method: string): string {
    let name = this.#spanNames.get(method);
    if (name === undefined) this.#spanNames.set(method, (name = `${spanNameOf(method)} ${this.route}`));
    return name;
  }
}
