import {
  diag,
  SpanStatusCode,
  type Attributes,
  type AttributeValue,
  type Exception,
  type HrTime,
  type Link,
  type Span,
  type SpanContext,
  type SpanKind,
  type SpanStatus,
  type TimeInput,
} from '@opentelemetry/api';
import type { TimedEvent } from '@opentelemetry/sdk-trace-base';
import { isAttributeValue, sanitized, truncated } from './span-attributes.js';
import { isBefore, toHrTime } from './span-time.js';
import type { SpanLimits } from './tracer-settings.js';

/** Where a span goes when it ends: its scope's batch, which encodes it at once. */
export interface EndedSpans {
  ended(span: RecordedSpan): void;
}

/** How a span starts: what the tracer decided for it. */
export interface SpanStart {
  readonly spanContext: SpanContext;
  readonly parentSpanContext: SpanContext | undefined;
  readonly name: string;
  readonly kind: SpanKind;
  readonly startTime: HrTime;
  readonly links: readonly Link[];
}

/**
 * A span that records (the sampler kept it), held as plain fields and handed
 * to its scope's batch when it ends, which encodes it then: nothing of it
 * outlives the request, where the SDK keeps every ended span object until
 * its batch is sent. It reads as the SDK's `ReadableSpan` does where the
 * encoder reads it, and follows the SDK's rules: attributes over the limit
 * are counted as dropped, strings cut to the value length limit, an OK
 * status is final, and nothing changes after `end`.
 */
export class RecordedSpan implements Span {
  name: string;
  readonly kind: SpanKind;
  readonly startTime: HrTime;
  endTime: HrTime;
  readonly parentSpanContext: SpanContext | undefined;
  readonly attributes: Attributes = {};
  droppedAttributesCount = 0;
  readonly events: TimedEvent[] = [];
  droppedEventsCount = 0;
  readonly links: Link[] = [];
  droppedLinksCount = 0;
  status: SpanStatus = { code: SpanStatusCode.UNSET };
  readonly #spanContext: SpanContext;
  readonly #limits: SpanLimits;
  readonly #sink: EndedSpans;
  #attributeCount = 0;
  #ended = false;

  constructor(start: SpanStart, limits: SpanLimits, sink: EndedSpans) {
    this.#spanContext = start.spanContext;
    this.parentSpanContext = start.parentSpanContext;
    this.name = start.name;
    this.kind = start.kind;
    this.startTime = start.startTime;
    this.endTime = start.startTime;
    this.#limits = limits;
    this.#sink = sink;
    if (start.links.length > 0) this.addLinks(start.links as Link[]);
  }

  spanContext(): SpanContext {
    return this.#spanContext;
  }

  isRecording(): boolean {
    return !this.#ended;
  }

  setAttribute(key: string, value: AttributeValue): this {
    if (this.#ended) return this;
    if (key === '' || !isAttributeValue(value)) {
      diag.warn(`Invalid attribute value set for key: ${key}`);
      return this;
    }
    const attributes = this.attributes;
    if (!Object.hasOwn(attributes, key)) {
      if (this.#attributeCount >= this.#limits.attributeCountLimit) {
        this.droppedAttributesCount++;
        return this;
      }
      this.#attributeCount++;
    }
    attributes[key] = this.#limits.attributeValueLengthLimit === Number.POSITIVE_INFINITY ? value : truncated(value, this.#limits.attributeValueLengthLimit);
    return this;
  }

  setAttributes(attributes: Attributes): this {
    for (const key in attributes) {
      if (Object.hasOwn(attributes, key)) this.setAttribute(key, attributes[key]!);
    }
    return this;
  }

  addEvent(name: string, attributesOrTime?: Attributes | TimeInput, time?: TimeInput): this {
    if (this.#ended) return this;
    const { eventCountLimit, attributeCountLimit, attributeValueLengthLimit } = this.#limits;
    // As the SDK: at the limit, the oldest event makes room.
    if (this.events.length >= eventCountLimit) {
      this.events.shift();
      this.droppedEventsCount++;
    }
    const timeGiven = isTimeInput(attributesOrTime);
    const { attributes, dropped } = sanitized(timeGiven ? undefined : (attributesOrTime as Attributes | undefined), attributeCountLimit, attributeValueLengthLimit);
    this.events.push({ name, attributes, time: toHrTime(timeGiven ? attributesOrTime : time), droppedAttributesCount: dropped });
    return this;
  }

  addLink(link: Link): this {
    if (this.#ended) return this;
    if (this.links.length >= this.#limits.linkCountLimit) {
      this.droppedLinksCount++;
      return this;
    }
    const { attributes, dropped } = sanitized(link.attributes, this.#limits.attributeCountLimit, this.#limits.attributeValueLengthLimit);
    this.links.push({ context: link.context, attributes, droppedAttributesCount: dropped });
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
      diag.error(`${this.name} ${this.#spanContext.traceId}-${this.#spanContext.spanId} - You can only call end() on a span once.`);
      return;
    }
    this.#ended = true;
    const time = toHrTime(endTime);
    // A clock stepped back (or an end time given before the start) would give a negative duration.
    this.endTime = isBefore(time, this.startTime) ? this.startTime : time;
    this.#sink.ended(this);
  }
}

function isTimeInput(value: unknown): value is TimeInput {
  return typeof value === 'number' || value instanceof Date || (Array.isArray(value) && value.length === 2 && typeof value[0] === 'number');
}
