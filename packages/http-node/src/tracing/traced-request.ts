import type { IncomingMessage, ServerResponse } from 'node:http';
import { context, INVALID_TRACEID, propagation, SpanKind, SpanStatusCode, trace, type Context, type Span } from '@opentelemetry/api';

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

/**
 * Runs `handle` (which must not reject, and resolves with the route
 * template the router matched, `undefined` for none) inside the request's SERVER span,
 * continuing the caller's trace when it sent one (the registered propagator
 * reads the headers: W3C `traceparent` by default). The span is named
 * `METHOD /route` with the route template (`/plants/{id}`), never a raw
 * path: ids, tenants and query strings stay out of traces as they stay out
 * of metrics. Without an OpenTelemetry SDK there is no valid span and
 * `handle` runs untouched, given no context.
 *
 * `handle` gets the span's context to pass on explicitly: it is also the
 * active one while `handle` starts, but not necessarily after an `await`
 * (the reference service's context manager does not follow promises).
 */
export function tracedRequest(
  req: IncomingMessage,
  res: ServerResponse,
  routes: RouteSpanNames,
  handle: (traceContext: Context | undefined) => Promise<string | undefined>,
): Promise<unknown> {
  const parent = propagation.extract(context.active(), req.headers);
  const method = knownMethod(req.method);
  const span = tracer.startSpan(method === '_OTHER' ? 'HTTP' : method, { kind: SpanKind.SERVER }, parent);
  // Without an SDK the span is the no-op one, all-zero ids (an SDK's spans always have valid ones): nothing to trace.
  if (span.spanContext().traceId === INVALID_TRACEID) return handle(undefined);
  if (span.isRecording()) {
    span.setAttribute('http.request.method', method);
    if (method === '_OTHER') span.setAttribute('http.request.method_original', String(req.method));
    span.setAttribute('url.scheme', (req.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http');
    span.setAttribute('network.protocol.version', req.httpVersion);
  }
  const traceContext = trace.setSpan(parent, span);
  const handled = context.with(traceContext, handle, undefined, traceContext);
  // A span the sampler left out records nothing at its end: no promise is chained for it on every such request.
  return span.isRecording() ? handled.then((template) => endServerSpan(span, method, res, routes, template)) : handled;
}

function endServerSpan(span: Span, method: string, res: ServerResponse, routes: RouteSpanNames, template: string | undefined): void {
  if (span.isRecording()) {
    if (template !== undefined) {
      const route = routes.of(template);
      span.setAttribute('http.route', route.route);
      span.updateName(route.spanName(method));
    }
    span.setAttribute('http.response.status_code', res.statusCode);
    // The server conventions: a 5xx is the server's error, a 4xx the client's (not an error of this span).
    if (res.statusCode >= 500) {
      span.setAttribute('error.type', String(res.statusCode));
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
  }
  span.end();
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
    if (name === undefined) this.#spanNames.set(method, (name = `${method === '_OTHER' ? 'HTTP' : method} ${this.route}`));
    return name;
  }
}
