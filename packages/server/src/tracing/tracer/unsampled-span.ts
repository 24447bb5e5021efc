import type { Attributes, AttributeValue, Exception, Link, Span, SpanContext, SpanStatus, TimeInput } from '@opentelemetry/api';

/**
 * A span the sampler left out: its context (ids and the decision) and
 * nothing else, as the API's non-recording span. A class of the tracer's
 * own so the spans of this tracer, recorded or not, can vouch for their
 * ids (see `idsAreHex`).
 */
export class UnsampledSpan implements Span {
  readonly #spanContext: SpanContext;

  constructor(spanContext: SpanContext) {
    this.#spanContext = spanContext;
  }

  /**
   * The ids are hex digits: drawn from the tracer's hex pool, or taken from
   * a parent context the API validated as hex. A log line may write them as
   * they are (see the JSON logger's `TraceIds.hex`).
   */
  get idsAreHex(): true {
    return true;
  }

  spanContext(): SpanContext {
    return this.#spanContext;
  }

  isRecording(): boolean {
    return false;
  }

  setAttribute(_key: string, _value: AttributeValue): this {
    return this;
  }

  setAttributes(_attributes: Attributes): this {
    return this;
  }

  addEvent(_name: string, _attributesOrTime?: Attributes | TimeInput, _time?: TimeInput): this {
    return this;
  }

  addLink(_link: Link): this {
    return this;
  }

  addLinks(_links: Link[]): this {
    return this;
  }

  setStatus(_status: SpanStatus): this {
    return this;
  }

  updateName(_name: string): this {
    return this;
  }

  end(_endTime?: TimeInput): void {}

  recordException(_exception: Exception, _time?: TimeInput): void {}
}
