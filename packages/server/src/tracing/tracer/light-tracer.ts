import {
  context as contextApi,
  diag,
  INVALID_SPAN_CONTEXT,
  SpanKind,
  trace,
  TraceFlags,
  type Attributes,
  type AttributeValue,
  type Context,
  type Span,
  type SpanOptions,
  type Tracer,
  type TraceState,
} from '@opentelemetry/api';
import { isTracingSuppressed } from '@opentelemetry/core';
import type { VouchedSpanContext } from '../vouched-span-context.js';
import { RecordedSpan, type EndedSpans, type SpanParent } from './recorded-span.js';
import { attributePairs } from './span-attributes.js';
import { hexWord, spanIdHex, TraceId, type SpanIds } from './span-ids.js';
import type { SampledParent } from './span-sampler.js';
import { sinceOrigin } from './span-time.js';
import type { TracerSettings } from './tracer-settings.js';

/**
 * The tracer of one instrumentation scope, deciding as the SDK's does: a
 * child continues its parent's trace (and trace state), a root starts a
 * new one, and the sampler decides whether the span records. A span the
 * sampler leaves out is the API's non-recording span around its context,
 * which still carries the ids and the decision to the spans and
 * `traceparent`s after it. In a context with tracing suppressed
 * (`suppressTracing` of `@opentelemetry/core`) it starts no span, as the
 * SDK's does not. (The SDK's samplers never record a span they
 * do not sample, so neither does this.)
 */
export class LightTracer implements Tracer {
  readonly #settings: TracerSettings;
  readonly #ids: SpanIds;
  readonly #sink: EndedSpans;
  readonly #presets = new WeakMap<Attributes, readonly (string | AttributeValue)[]>();

  constructor(settings: TracerSettings, ids: SpanIds, sink: EndedSpans) {
    this.#settings = settings;
    this.#ids = ids;
    this.#sink = sink;
  }

  startSpan(name: string, options: SpanOptions = {}, context: Context = contextApi.active()): Span {
    // As the SDK's tracer: no span at all where tracing is suppressed (an exporter's own requests, say).
    if (isTracingSuppressed(context)) return trace.wrapSpanContext(INVALID_SPAN_CONTEXT);
    const parentSpan = options.root ? undefined : trace.getSpan(context);
    const parent = parentSpan === undefined ? undefined : parentOf(parentSpan);
    const ids = this.#ids;
    const traceId = parent?.traceId ?? ids.traceId();
    const at = ids.spanId();
    // The span id's digits: the pool's from twice the id's byte offset (see SpanIds).
    const spanIdDigits = ids.digits;
    if (!this.#settings.sampler(parent, traceId)) {
      // Vouched for: the ids are the pool's hex digits, or a parent's the API validated as hex (see parentOf).
      const spanContext: VouchedSpanContext = { traceId: traceId.hex, spanId: spanIdHex(spanIdDigits, 2 * at), traceFlags: TraceFlags.NONE, traceState: parent?.traceState, idsAreHex: true };
      return trace.wrapSpanContext(spanContext);
    }
    const start = {
      traceId,
      spanIdHigh: ids.word(at),
      spanIdLow: ids.word(at + 4),
      spanIdDigits,
      spanIdAt: 2 * at,
      traceState: parent?.traceState,
      parent,
      name,
      kind: options.kind ?? SpanKind.INTERNAL,
      startTime: sinceOrigin(options.startTime),
      attributes: options.attributes && this.#presetOf(options.attributes),
    };
    const span = new RecordedSpan(start, this.#settings.limits, this.#sink);
    if (options.attributes && start.attributes === undefined) span.setAttributes(options.attributes);
    if (options.links) span.addLinks(options.links);
    return span;
  }

  /**
   * The attributes of a frozen options' object as a span keeps them, made
   * once per object: a caller that starts many spans with one such object
   * (core's storage spans do, per operation) spares each span setting
   * them one by one. `undefined` for any other object (it may change
   * between spans), or when a span would drop or report some of them.
   */
  #presetOf(attributes: Attributes): readonly (string | AttributeValue)[] | undefined {
    let preset = this.#presets.get(attributes);
    if (preset === undefined && Object.isFrozen(attributes)) {
      const { attributeCountLimit, attributeValueLengthLimit } = this.#settings.limits;
      preset = attributePairs(attributes, attributeCountLimit, attributeValueLengthLimit) ?? NO_PRESET;
      this.#presets.set(attributes, preset);
    }
    return preset === NO_PRESET ? undefined : preset;
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

// Kept for a frozen object whose attributes a span would not keep as they are: looked up once, then set one by one.
const NO_PRESET: readonly (string | AttributeValue)[] = [];

/** What a new span takes from its parent span: the trace, the parent's id and flags, and the trace state. */
interface Parent extends SpanParent, SampledParent {
  readonly traceId: TraceId;
  readonly traceState: TraceState | undefined;
}

/**
 * The parent a span in `span`'s context has, or none when its context is
 * not valid. One of this tracer's own spans gives its words as they are;
 * any other (a remote context from a `traceparent`, a span the sampler left
 * out) is read from its hex ids.
 */
function parentOf(span: Span): Parent | undefined {
  // Taken as it is: nothing to allocate for the child of a recorded span.
  if (span instanceof RecordedSpan) return span;
  const context = span.spanContext();
  if (!trace.isSpanContextValid(context)) return undefined;
  return {
    traceId: TraceId.fromHex(context.traceId),
    spanIdHigh: hexWord(context.spanId, 0),
    spanIdLow: hexWord(context.spanId, 8),
    isRemote: context.isRemote === true,
    sampled: (context.traceFlags & TraceFlags.SAMPLED) !== 0,
    traceState: context.traceState,
  };
}
