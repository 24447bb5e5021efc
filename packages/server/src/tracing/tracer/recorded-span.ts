import {
  diag,
  SpanStatusCode,
  type Attributes,
  type AttributeValue,
  type Exception,
  type Link,
  type Span,
  type SpanContext,
  type SpanKind,
  type SpanStatus,
  type TimeInput,
  type TraceState,
  TraceFlags,
} from '@opentelemetry/api';
import type { TimedEvent } from '@opentelemetry/sdk-trace-base';
import type { VouchedSpanContext } from '../vouched-span-context.js';
import { isAttributeValue, keptValue, sanitized } from './span-attributes.js';
import { spanIdHex, type TraceId } from './span-ids.js';
import { sinceOrigin, toHrTime } from './span-time.js';
import type { SpanLimits } from './tracer-settings.js';

/** Where a span goes when it ends: its scope's batch, which encodes it at once. */
export interface EndedSpans {
  ended(span: RecordedSpan): void;
}

/** A span's parent, as the span keeps it. */
export interface SpanParent {
  /** The parent span id's two 32-bit words. */
  readonly spanIdHigh: number;
  readonly spanIdLow: number;
  readonly isRemote: boolean;
}

/** How a span starts: what the tracer decided for it. */
export interface SpanStart {
  readonly traceId: TraceId;
  readonly spanIdHigh: number;
  readonly spanIdLow: number;
  /** Holds the span id's 16 hex digits from `spanIdAt`: a slice of it is the id's hex, made when asked. */
  readonly spanIdDigits: string;
  readonly spanIdAt: number;
  readonly traceState: TraceState | undefined;
  readonly parent: SpanParent | undefined;
  readonly name: string;
  readonly kind: SpanKind;
  readonly startTime: number;
  /** Attributes the span starts with, as it keeps them (see `attributes`), shared with other spans: copied before a change. */
  readonly attributes?: readonly (string | AttributeValue)[];
}

/**
 * A span that records (the sampler kept it, so it is also sampled), held
 * as plain fields and handed to its scope's batch when it ends, which
 * encodes it then: nothing of it outlives the request, where the SDK keeps
 * every ended span object until its batch is sent. Ids are kept as 32-bit
 * words and times as milliseconds since the time origin; the hex ids of
 * `spanContext()` are made only when something asks for them. It follows
 * the SDK's rules: attributes over the limit are counted as dropped,
 * strings cut to the value length limit, an OK status is final, and
 * nothing changes after `end`.
 */
export class RecordedSpan implements Span {
  name: string;
  readonly kind: SpanKind;
  readonly traceId: TraceId;
  readonly spanIdHigh: number;
  readonly spanIdLow: number;
  readonly traceState: TraceState | undefined;
  readonly parent: SpanParent | undefined;
  /** Milliseconds since the time origin. */
  readonly startTime: number;
  endTime: number;
  /**
   * Attributes as key, value, key, value…, in the order first set (an
   * attribute set again keeps its place): one array per span, where an
   * object or two arrays would be more to allocate on every request. A
   * span started with a tracer's preset (see `SpanStart`) shares that
   * array until its first change, and two spans sharing one have
   * the same attributes at a glance (see span-shapes.ts).
   */
  attributes: readonly (string | AttributeValue)[];
  droppedAttributesCount = 0;
  droppedEventsCount = 0;
  droppedLinksCount = 0;
  /** As a parent, a span of this tracer is local and sampled: a child takes it as it is (see LightTracer). */
  readonly isRemote = false;
  readonly sampled = true;
  status: SpanStatus = UNSET;
  #spanContext: VouchedSpanContext | undefined;
  readonly #spanIdDigits: string;
  readonly #spanIdAt: number;
  readonly #limits: SpanLimits;
  readonly #sink: EndedSpans;
  #ended = false;
  #sharedAttributes: boolean;
  // Made on the first event or link: most spans have none.
  #events: TimedEvent[] | undefined;
  #links: Link[] | undefined;

  constructor(start: SpanStart, limits: SpanLimits, sink: EndedSpans) {
    this.traceId = start.traceId;
    this.spanIdHigh = start.spanIdHigh;
    this.spanIdLow = start.spanIdLow;
    this.#spanIdDigits = start.spanIdDigits;
    this.#spanIdAt = start.spanIdAt;
    this.traceState = start.traceState;
    this.parent = start.parent;
    this.name = start.name;
    this.kind = start.kind;
    this.startTime = start.startTime;
    this.endTime = start.startTime;
    this.attributes = start.attributes ?? [];
    this.#sharedAttributes = start.attributes !== undefined;
    this.#limits = limits;
    this.#sink = sink;
  }

  get events(): readonly TimedEvent[] {
    return this.#events ?? NONE;
  }

  get links(): readonly Link[] {
    return this.#links ?? NONE;
  }

  spanContext(): SpanContext {
    return (this.#spanContext ??= {
      traceId: this.traceId.hex,
      spanId: spanIdHex(this.#spanIdDigits, this.#spanIdAt),
      traceFlags: TraceFlags.SAMPLED,
      traceState: this.traceState,
      // Vouched for: the ids are the pool's hex digits, or a parent's the API validated as hex.
      idsAreHex: true,
    });
  }

  isRecording(): boolean {
    return !this.#ended;
  }

  setAttribute(key: string, value: AttributeValue): this {
    if (this.#ended) return this;
    if (key === '' || !isAttributeValue(value)) {
      // One message whatever the key (the key as its detail), so the log's once-a-minute limit holds.
      diag.warn('an attribute with an invalid value or an empty key was ignored', key);
      return this;
    }
    const { attributeCountLimit, attributeValueLengthLimit } = this.#limits;
    const kept = keptValue(value, attributeValueLengthLimit);
    // A shared preset becomes the span's own on its first change.
    if (this.#sharedAttributes) {
      this.attributes = this.attributes.slice();
      this.#sharedAttributes = false;
    }
    const attributes = this.attributes as (string | AttributeValue)[];
    for (let index = 0; index < attributes.length; index += 2) {
      if (attributes[index] === key) {
        attributes[index + 1] = kept;
        return this;
      }
    }
    if (attributes.length >= attributeCountLimit * 2) this.droppedAttributesCount++;
    else attributes.push(key, kept);
    return this;
  }

  setAttributes(attributes: Attributes): this {
    // Own keys from V8's cache of the object's shape, where for…in with a check of each key is a generic walk.
    const keys = Object.keys(attributes);
    for (let index = 0; index < keys.length; index++) this.setAttribute(keys[index]!, attributes[keys[index]!]!);
    return this;
  }

  addEvent(name: string, attributesOrTime?: Attributes | TimeInput, time?: TimeInput): this {
    if (this.#ended) return this;
    const { eventCountLimit, attributeCountLimit, attributeValueLengthLimit } = this.#limits;
    // As the SDK: at the limit, the oldest event makes room.
    const events = (this.#events ??= []);
    if (events.length >= eventCountLimit) {
      events.shift();
      this.droppedEventsCount++;
    }
    const timeGiven = isTimeInput(attributesOrTime);
    const { attributes, dropped } = sanitized(timeGiven ? undefined : (attributesOrTime as Attributes | undefined), attributeCountLimit, attributeValueLengthLimit);
    events.push({ name, attributes, time: toHrTime(sinceOrigin(timeGiven ? attributesOrTime : time)), droppedAttributesCount: dropped });
    return this;
  }

  addLink(link: Link): this {
    if (this.#ended) return this;
    const links = (this.#links ??= []);
    if (links.length >= this.#limits.linkCountLimit) {
      this.droppedLinksCount++;
      return this;
    }
    const { attributes, dropped } = sanitized(link.attributes, this.#limits.attributeCountLimit, this.#limits.attributeValueLengthLimit);
    links.push({ context: link.context, attributes, droppedAttributesCount: dropped });
    return this;
  }

  addLinks(links: Link[]): this {
    for (const link of links) this.addLink(link);
    return this;
  }

  setStatus(status: SpanStatus): this {
    // OK is final; UNSET sets nothing (the specification's rules, as the SDK applies them).
    if (this.#ended || this.status.code === SpanStatusCode.OK || status.code === SpanStatusCode.UNSET) return this;
    this.status = status.code === SpanStatusCode.ERROR && typeof status.message === 'string' ? { code: status.code, message: status.message } : { code: status.code };
    return this;
  }

  updateName(name: string): this {
    if (!this.#ended) this.name = name;
    return this;
  }

  recordException(exception: Exception, time?: TimeInput): void {
    const attributes: Attributes = {};
    if (typeof exception === 'string') {
      attributes['exception.message'] = exception;
    } else if (exception) {
      const type = exception.code !== undefined ? String(exception.code) : exception.name;
      if (type) attributes['exception.type'] = type;
      if (exception.message) attributes['exception.message'] = exception.message;
      if (exception.stack) attributes['exception.stacktrace'] = exception.stack;
    }
    this.addEvent('exception', attributes, time);
  }

  end(endTime?: TimeInput): void {
    if (this.#ended) {
      diag.error('a span was ended twice; the second end was ignored', this.name);
      return;
    }
    this.#ended = true;
    // An end time given before the start would give a negative duration.
    this.endTime = Math.max(this.startTime, sinceOrigin(endTime));
    this.#sink.ended(this);
  }
}

const UNSET: SpanStatus = { code: SpanStatusCode.UNSET };
const NONE: readonly never[] = [];

function isTimeInput(value: unknown): value is TimeInput {
  return typeof value === 'number' || value instanceof Date || (Array.isArray(value) && value.length === 2 && typeof value[0] === 'number');
}
