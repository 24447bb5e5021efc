import type { IncomingMessage, ServerResponse } from 'node:http';
import { context, INVALID_TRACEID, propagation, SpanKind, SpanStatusCode, trace, type Attributes, type Span } from '@opentelemetry/api';

const tracer = trace.getTracer('@plant-store/http-node');

// The methods the HTTP conventions know; any other is `_OTHER` (a raw method is unbounded user input).
const KNOWN_METHODS = new Set(['GET', 'POST', 'DELETE', 'PUT', 'PATCH', 'HEAD', 'OPTIONS', 'CONNECT', 'TRACE']);

export type EndServerSpan = (template: string | undefined) => void;

/** Runs `handle` in the request's SERVER span, named by route template, never a raw path, so ids and tenants stay out of traces. */
export function tracedRequest(
  req: IncomingMessage,
  res: ServerResponse,
  basePath: string,
  handle: (end: EndServerSpan | undefined) => Promise<unknown>,
): Promise<unknown> {
  const parent = propagation.extract(context.active(), req.headers);
  const method = req.method !== undefined && KNOWN_METHODS.has(req.method) ? req.method : '_OTHER';
  const span = tracer.startSpan(spanNameOf(method), { kind: SpanKind.SERVER, attributes: serverAttributes(method, req) }, parent);
  const recording = span.isRecording();
  // Without an SDK the span is the no-op one, all-zero ids: nothing to trace.
  if (!recording && span.spanContext().traceId === INVALID_TRACEID) return handle(undefined);
  const end: EndServerSpan | undefined = recording
    ? (template) => endServerSpan(span, method, res, template === undefined ? undefined : `${basePath}${template}`)
    : undefined;
  return context.with(trace.setSpan(parent, span), handle, undefined, end);
}

function spanNameOf(method: string): string {
  return method === '_OTHER' ? 'HTTP' : method;
}

/** Given at creation, where a sampler can see them. */
function serverAttributes(method: string, req: IncomingMessage): Attributes {
  const attributes: Attributes = { 'http.request.method': method };
  if (method === '_OTHER') attributes['http.request.method_original'] = String(req.method);
  attributes['url.scheme'] = (req.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http';
  attributes['network.protocol.version'] = req.httpVersion;
  return attributes;
}

function endServerSpan(span: Span, method: string, res: ServerResponse, route: string | undefined): void {
  if (route !== undefined) {
    span.setAttribute('http.route', route);
    span.updateName(`${spanNameOf(method)} ${route}`);
  }
  const status = res.statusCode;
  span.setAttribute('http.response.status_code', status);
  // The server conventions: a 5xx is the server's error, a 4xx the client's (not an error of this span).
  if (status >= 500) {
    span.setAttribute('error.type', String(status));
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}
