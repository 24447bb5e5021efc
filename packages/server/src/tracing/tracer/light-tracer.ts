import {
  context as contextApi,
  diag,
  SamplingDecision,
  SpanKind,
  trace,
  TraceFlags,
  type Context,
  type Span,
  type SpanContext,
  type SpanOptions,
  type Tracer,
} from '@opentelemetry/api';
import { RecordedSpan, type EndedSpans } from './recorded-span.js';
import type { SpanIds } from './span-ids.js';
import { toHrTime } from './span-time.js';
import type { TracerSettings } from './tracer-settings.js';

/**
 * The tracer of one instrumentation scope, deciding as the SDK's does: a
 * child continues its parent's trace (and trace state), a root starts a
 * new one, and the sampler decides whether the span records. A span the
 * sampler leaves out is the API's non-recording span around its context,
 * which still carries the ids and the decision to the spans and
 * `traceparent`s after it.
 */
export class LightTracer implements Tracer {
  readonly #settings: TracerSettings;
  readonly #ids: SpanIds;
  readonly #sink: EndedSpans;

  constructor(settings: TracerSettings, ids: SpanIds, sink: EndedSpans) {
    this.#settings = settings;
    this.#ids = ids;
    this.#sink = sink;
  }

  startSpan(name: string, options: SpanOptions = {}, context: Context = contextApi.active()): Span {
    const parentContext = options.root ? trace.deleteSpan(context) : context;
    const parent = trace.getSpanContext(parentContext);
    const validParent = parent !== undefined && trace.isSpanContextValid(parent) ? parent : undefined;
    const traceId = validParent?.traceId ?? this.#ids.traceId();
    const kind = options.kind ?? SpanKind.INTERNAL;
    const links = options.links ?? [];
    const attributes = options.attributes ?? {};
    const result = this.#settings.sampler.shouldSample(parentContext, traceId, name, kind, attributes, links);
    const spanContext: SpanContext = {
      traceId,
      spanId: this.#ids.spanId(),
      traceFlags: result.decision === SamplingDecision.RECORD_AND_SAMPLED ? TraceFlags.SAMPLED : TraceFlags.NONE,
      traceState: result.traceState ?? validParent?.traceState,
    };
    if (result.decision === SamplingDecision.NOT_RECORD) return trace.wrapSpanContext(spanContext);
    const span = new RecordedSpan({ spanContext, parentSpanContext: validParent, name, kind, startTime: toHrTime(options.startTime), links }, this.#settings.limits, this.#sink);
    span.setAttributes(attributes);
    if (result.attributes) span.setAttributes(result.attributes);
    return span;
  }

  startActiveSpan<F extends (span: Span) => unknown>(name: string, fn: F): ReturnType<F>;
  startActiveSpan<F extends (span: Span) => unknown>(name: string, options: SpanOptions, fn: F): ReturnType<F>;
  startActiveSpan<F extends (span: Span) => unknown>(name: string, options: SpanOptions, context: Context, fn: F): ReturnType<F>;
  startActiveSpan<F extends (span: Span) => unknown>(name: string, ...rest: [F] | [SpanOptions, F] | [SpanOptions, Context, F]): ReturnType<F> {
    const fn = rest[rest.length - 1] as F;
    const options = rest.length > 1 ? (rest[0] as SpanOptions) : undefined;
    const parent = rest.length > 2 ? (rest[1] as Context) : contextApi.active();
    if (typeof fn !== 'function') {
      diag.error('startActiveSpan needs a function to run');
      return undefined as ReturnType<F>;
    }
    const span = this.startSpan(name, options, parent);
    return contextApi.with(trace.setSpan(parent, span), fn as (span: Span) => ReturnType<F>, undefined, span);
  }
}
