// The parts of an OTLP `ExportTraceServiceRequest` in protobuf that the
// service's tracer writes around its spans (the resource, the scopes) and
// inside them (attributes, events, links, status), field for field as
// `@opentelemetry/otlp-transformer`'s `ProtobufTraceSerializer` writes them
// (a test holds the two together). Field numbers and the order of fields
// follow the OTLP .proto files (`opentelemetry/proto/trace/v1/trace.proto`,
// `common/v1/common.proto`).
import type { Attributes, AttributeValue, Link, SpanContext, SpanStatus } from '@opentelemetry/api';
import type { ReadableSpan, TimedEvent } from '@opentelemetry/sdk-trace-base';
import { FIXED32, FIXED64, LENGTH_DELIMITED, VARINT, type ProtobufWriter } from './protobuf-writer.js';

export type Resource = ReadableSpan['resource'];
export type InstrumentationScope = ReadableSpan['instrumentationScope'];

/** The spans of one instrumentation scope, already encoded (see `appendRecordedSpan`). */
export interface EncodedScopeSpans {
  readonly scope: InstrumentationScope;
  readonly spans: Uint8Array;
}

/** Set in a span's and a link's flags: whether the parent (or linked) context came from another process is known. */
export const CONTEXT_HAS_IS_REMOTE = 0x100;
export const CONTEXT_IS_REMOTE = 0x200;

/** One `ResourceSpans` message, as field 1 of an `ExportTraceServiceRequest`: the resource and its scopes' encoded spans. */
export function writeResourceSpans(writer: ProtobufWriter, resource: Resource, scopes: readonly EncodedScopeSpans[]): void {
  writer.tag(1, LENGTH_DELIMITED);
  const start = writer.begin();
  writer.tag(1, LENGTH_DELIMITED);
  const resourceStart = writer.begin();
  writeAttributes(writer, resource.attributes, 1);
  // dropped_attributes_count: always written, as the SDK's serializer does.
  writer.tag(2, VARINT);
  writer.varint(0);
  writer.end(resourceStart);
  for (const { scope, spans } of scopes) {
    writer.tag(2, LENGTH_DELIMITED);
    writeScopeSpans(writer, scope, spans);
  }
  if (resource.schemaUrl) {
    writer.tag(3, LENGTH_DELIMITED);
    writer.string(resource.schemaUrl);
  }
  writer.end(start);
}

function writeScopeSpans(writer: ProtobufWriter, scope: InstrumentationScope, spans: Uint8Array): void {
  const start = writer.begin();
  writer.tag(1, LENGTH_DELIMITED);
  const scopeStart = writer.begin();
  writer.tag(1, LENGTH_DELIMITED);
  writer.string(scope.name);
  if (scope.version) {
    writer.tag(2, LENGTH_DELIMITED);
    writer.string(scope.version);
  }
  // Newer SDKs give scopes attributes; written where present, as the SDK's serializer does.
  const { attributes, droppedAttributesCount } = scope as { attributes?: Attributes; droppedAttributesCount?: number };
  if (attributes) writeAttributes(writer, attributes, 3);
  if (droppedAttributesCount) {
    writer.tag(4, VARINT);
    writer.varint(droppedAttributesCount);
  }
  writer.end(scopeStart);
  writer.raw(spans);
  if (scope.schemaUrl) {
    writer.tag(3, LENGTH_DELIMITED);
    writer.string(scope.schemaUrl);
  }
  writer.end(start);
}

/** Fields 1 to 3 of a link: trace id, span id, trace state. */
function writeContext(writer: ProtobufWriter, context: SpanContext): void {
  writer.tag(1, LENGTH_DELIMITED);
  writer.hexBytes(context.traceId);
  writer.tag(2, LENGTH_DELIMITED);
  writer.hexBytes(context.spanId);
  const traceState = context.traceState?.serialize();
  if (traceState) {
    writer.tag(3, LENGTH_DELIMITED);
    writer.string(traceState);
  }
}

export function writeEvent(writer: ProtobufWriter, event: TimedEvent): void {
  const start = writer.begin();
  writer.tag(1, FIXED64);
  writer.hrTime(event.time);
  writer.tag(2, LENGTH_DELIMITED);
  writer.string(event.name);
  if (event.attributes) writeAttributes(writer, event.attributes, 3);
  writer.tag(4, VARINT);
  writer.varint(event.droppedAttributesCount ?? 0);
  writer.end(start);
}

export function writeLink(writer: ProtobufWriter, link: Link): void {
  const start = writer.begin();
  const context = link.context;
  writeContext(writer, context);
  if (link.attributes) writeAttributes(writer, link.attributes, 4);
  writer.tag(5, VARINT);
  writer.varint(link.droppedAttributesCount ?? 0);
  writer.tag(6, FIXED32);
  writer.fixed32(spanFlags(context.traceFlags, context.isRemote));
  writer.end(start);
}

export function writeStatus(writer: ProtobufWriter, status: SpanStatus): void {
  const start = writer.begin();
  if (status.message) {
    writer.tag(2, LENGTH_DELIMITED);
    writer.string(status.message);
  }
  writer.tag(3, VARINT);
  writer.varint(status.code);
  writer.end(start);
}

function spanFlags(traceFlags: number, isRemote: boolean | undefined): number {
  return (traceFlags & 0xff) | CONTEXT_HAS_IS_REMOTE | (isRemote ? CONTEXT_IS_REMOTE : 0);
}

/** Each attribute as a `KeyValue` in field `field`. */
function writeAttributes(writer: ProtobufWriter, attributes: Attributes, field: number): void {
  for (const key in attributes) {
    if (!Object.hasOwn(attributes, key)) continue;
    writer.tag(field, LENGTH_DELIMITED);
    writeKeyValue(writer, key, attributes[key]);
  }
}

export function writeKeyValue(writer: ProtobufWriter, key: string, value: unknown): void {
  const start = writer.begin();
  writer.tag(1, LENGTH_DELIMITED);
  writer.string(key);
  writer.tag(2, LENGTH_DELIMITED);
  const valueStart = writer.begin();
  writeAnyValue(writer, value as AttributeValue | undefined);
  writer.end(valueStart);
  writer.end(start);
}

const INT64_BOUND = 2 ** 63;

/** An `AnyValue`'s one field. Arrays and plain objects nest (what the SDK accepts as log bodies); `undefined` and `null` leave it empty. */
function writeAnyValue(writer: ProtobufWriter, value: unknown): void {
  if (typeof value === 'string') {
    writer.tag(1, LENGTH_DELIMITED);
    writer.string(value);
  } else if (typeof value === 'boolean') {
    writer.tag(2, VARINT);
    writer.varint(value ? 1 : 0);
  } else if (typeof value === 'number') {
    if (Number.isInteger(value) && value >= -INT64_BOUND && value < INT64_BOUND) {
      writer.tag(3, VARINT);
      writer.varint(value);
    } else {
      writer.tag(4, FIXED64);
      writer.double(value);
    }
  } else if (value instanceof Uint8Array) {
    writer.tag(7, LENGTH_DELIMITED);
    writer.bytes(value);
  } else if (Array.isArray(value)) {
    writer.tag(5, LENGTH_DELIMITED);
    const start = writer.begin();
    for (const item of value as unknown[]) {
      writer.tag(1, LENGTH_DELIMITED);
      const itemStart = writer.begin();
      writeAnyValue(writer, item);
      writer.end(itemStart);
    }
    writer.end(start);
  } else if (typeof value === 'object' && value !== null) {
    writer.tag(6, LENGTH_DELIMITED);
    const start = writer.begin();
    const entries = value as Record<string, unknown>;
    for (const key in entries) {
      if (!Object.hasOwn(entries, key)) continue;
      writer.tag(1, LENGTH_DELIMITED);
      writeKeyValue(writer, key, entries[key]);
    }
    writer.end(start);
  }
}
