import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Link, type Span } from '@opentelemetry/api';
import type { ClaimedDelivery } from '../ports/webhook-outbox.js';
import type { WebhookSendOutcome } from '../ports/webhook-transport.js';
import { destinationPort } from '../webhooks/destination-url.js';
import { parseTraceparent } from './trace-parent.js';
import { tracer } from './tracer.js';

/**
 * The CLIENT span of one delivery attempt: a trace of its own (it may come hours later, from another process), linked
 * to the write that queued it. The receiver is named by host only: a tenant's URL may carry a secret in path or query.
 */
export function startAttemptSpan(delivery: ClaimedDelivery, url: string | undefined): Span {
  const queuedBy = parseTraceparent(delivery.traceparent);
  const links: Link[] = queuedBy ? [{ context: queuedBy }] : [];
  const span = tracer.startSpan('POST', { kind: SpanKind.CLIENT, root: true, links }, ROOT_CONTEXT);
  if (!span.isRecording()) return span;
  const attributes: Attributes = {
    'http.request.method': 'POST',
    'plant_store.webhook.endpoint_id': delivery.endpointId,
    'plant_store.webhook.message_id': delivery.id,
    'plant_store.webhook.event_type': delivery.eventType,
  };
  if (delivery.attemptCount > 0) attributes['http.request.resend_count'] = delivery.attemptCount;
  const server = url === undefined ? undefined : serverOf(url);
  if (server) Object.assign(attributes, server);
  span.setAttributes(attributes);
  return span;
}

/** Adds the registered propagator's headers (W3C `traceparent`) so the receiver's tracing joins the attempt's trace; none without an SDK. */
export function addTraceHeaders(headers: Record<string, string>, span: Span): Record<string, string> {
  propagation.inject(trace.setSpan(ROOT_CONTEXT, span), headers);
  return headers;
}

/** Runs `send` with the attempt span active, so spans an instrumented HTTP client makes become its children. */
export function inAttemptSpan<T>(span: Span, send: () => Promise<T>): Promise<T> {
  return span.isRecording() ? context.with(trace.setSpan(ROOT_CONTEXT, span), send) : send();
}

/** Ends the span with what the attempt came to; anything but `delivered` is an error status whose message is the (secret-free) reason. */
export function endAttemptSpan(span: Span, outcome: WebhookSendOutcome, interrupted: boolean): void {
  if (span.isRecording()) {
    span.setAttribute('plant_store.webhook.outcome', interrupted ? 'interrupted' : outcome.kind);
    if (outcome.statusCode !== undefined) span.setAttribute('http.response.status_code', outcome.statusCode);
    if (outcome.kind !== 'delivered') {
      span.setAttribute('error.type', outcome.statusCode !== undefined ? String(outcome.statusCode) : '_OTHER');
      span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.reason });
    }
  }
  span.end();
}

/** `server.address` (host only) and `server.port` of the receiver's URL; none when it does not parse. */
function serverOf(url: string): Attributes | undefined {
  if (!URL.canParse(url)) return undefined;
  const parsed = new URL(url);
  const port = destinationPort(parsed);
  // An IPv6 host comes bracketed in a URL; the attribute takes the bare address.
  return {
    'server.address': parsed.hostname.replace(/^\[(.*)\]$/, '$1'),
    ...(port === undefined ? {} : { 'server.port': port }),
    'url.scheme': parsed.protocol.slice(0, -1),
  };
}
