import { SpanStatusCode, TraceFlags } from '@opentelemetry/api';
import { CONTEXT_HAS_IS_REMOTE, CONTEXT_IS_REMOTE, writeEvent, writeLink, writeStatus } from '../otlp-trace-protobuf.js';
import { FIXED32, FIXED64, LENGTH_DELIMITED, ProtobufWriter, VARINT } from '../protobuf-writer.js';
import { writeAttributes } from './encoded-attributes.js';
import type { RecordedSpan } from './recorded-span.js';
import { type ParentPlace, keepShape, shapeOf, type SpanShape } from './span-shapes.js';
import { putEpochNanos, writeEpochNanos } from './span-time.js';

/**
 * Appends `span` as one OTLP `Span` of a `ScopeSpans` message (its field 2),
 * field for field what the SDK's serializer writes for the same span (a
 * test decodes it): ids from their words, no hex in between, times from
 * milliseconds since the time origin. A span of a shape written before is
 * that shape's template with its own ids and times (see `SpanShape`).
 */
export function appendRecordedSpan(writer: ProtobufWriter, span: RecordedSpan): void {
  const parent = parentPlace(span);
  const shapeable = isShapeable(span);
  if (shapeable) {
    const shape = shapeOf(span.name, span.kind, parent, span.attributes);
    if (shape !== undefined) {
      writeShaped(writer, span, shape);
      return;
    }
  }
  const start = writer.pos;
  const { idsFromEnd, timesFromEnd } = writeFields(writer, span);
  if (!shapeable || holdsArray(span.attributes)) return;
  // Copied out of the batch's buffer, which is written over; the pairs are the ended span's own, which nothing changes any more.
  const template = Uint8Array.prototype.slice.call(writer.buffer, start, writer.pos);
  const { name, kind, attributes: pairs } = span;
  keepShape({ name, kind, parent, pairs, template, idsAt: template.length - idsFromEnd, timesAt: template.length - timesFromEnd });
}

/** `template` with `span`'s ids and times written over the ones it was made with. */
function writeShaped(writer: ProtobufWriter, span: RecordedSpan, shape: SpanShape): void {
  const at = writer.pos;
  writer.raw(shape.template);
  // After `raw`, which may have grown the buffer.
  const view = writer.view;
  const ids = at + shape.idsAt;
  const traceId = span.traceId;
  view.setInt32(ids, traceId.w0);
  view.setInt32(ids + 4, traceId.w1);
  view.setInt32(ids + 8, traceId.w2);
  view.setInt32(ids + 12, traceId.w3);
  // After the trace id: the span id's key and length, its 8 bytes, then the parent's key, length and 8 bytes.
  view.setInt32(ids + 18, span.spanIdHigh);
  view.setInt32(ids + 22, span.spanIdLow);
  if (span.parent !== undefined) {
    view.setInt32(ids + 28, span.parent.spanIdHigh);
    view.setInt32(ids + 32, span.parent.spanIdLow);
  }
  const times = at + shape.timesAt;
  putEpochNanos(view, times, span.startTime);
  // The end time's key between them.
  putEpochNanos(view, times + 9, span.endTime);
}

/** Where in the encoding, counted from its end, the trace id's bytes and the start time's bytes begin. */
interface FieldOffsets {
  readonly idsFromEnd: number;
  readonly timesFromEnd: number;
}

/** Writes `span` field by field; returns where its ids and times are, from the end (the length written last may move the rest). */
function writeFields(writer: ProtobufWriter, span: RecordedSpan): FieldOffsets {
  writer.tag(2, LENGTH_DELIMITED);
  const start = writer.begin();
  const traceId = span.traceId;
  writer.tag(1, LENGTH_DELIMITED);
  const idsAt = writer.pos + 1;
  writer.id128(traceId.w0, traceId.w1, traceId.w2, traceId.w3);
  writer.tag(2, LENGTH_DELIMITED);
  writer.id64(span.spanIdHigh, span.spanIdLow);
  const traceState = span.traceState?.serialize();
  if (traceState) {
    writer.tag(3, LENGTH_DELIMITED);
    writer.string(traceState);
  }
  if (span.parent !== undefined) {
    writer.tag(4, LENGTH_DELIMITED);
    writer.id64(span.parent.spanIdHigh, span.parent.spanIdLow);
  }
  writer.tag(5, LENGTH_DELIMITED);
  writer.string(span.name);
  // OTLP's SpanKind counts from SPAN_KIND_UNSPECIFIED (0); the API's from INTERNAL.
  writer.tag(6, VARINT);
  writer.varint(span.kind + 1);
  writer.tag(7, FIXED64);
  const timesAt = writer.pos;
  writeEpochNanos(writer, span.startTime);
  writer.tag(8, FIXED64);
  writeEpochNanos(writer, span.endTime);
  writeSpanContents(writer, span);
  writer.tag(16, FIXED32);
  writer.fixed32(TraceFlags.SAMPLED | CONTEXT_HAS_IS_REMOTE | (span.parent?.isRemote ? CONTEXT_IS_REMOTE : 0));
  const offsets = { idsFromEnd: writer.pos - idsAt, timesFromEnd: writer.pos - timesAt };
  writer.end(start);
  return offsets;
}

function parentPlace(span: RecordedSpan): ParentPlace {
  if (span.parent === undefined) return 0;
  return span.parent.isRemote ? 2 : 1;
}

/**
 * Whether `span` can be written from a shape, or kept as one: only its ids
 * and times may differ from those of another span of its shape, so its
 * other fields must all come from the shape's key (name, kind, parent
 * place, attributes), its times must be written as the template's are (not
 * before the time origin), and it carries no trace state, events, links,
 * drops or status.
 */
function isShapeable(span: RecordedSpan): boolean {
  return span.traceState === undefined && span.startTime >= 0 && isBare(span);
}

/** Whether an attribute value is an array: shapes compare values by identity, so a span holding one is not kept as a shape. */
function holdsArray(attributes: RecordedSpan['attributes']): boolean {
  for (let index = 1; index < attributes.length; index += 2) if (typeof attributes[index] === 'object') return true;
  return false;
}

/** Fields 9 to 15: attributes, events and links with their dropped counts, and the status. */
function writeSpanContents(writer: ProtobufWriter, span: RecordedSpan): void {
  writeAttributes(writer, span.attributes);
  if (isBare(span)) writer.raw(BARE_TAIL);
  else writeTail(writer, span);
}

/** What fields 10 to 15 are written from. */
type SpanTail = Pick<RecordedSpan, 'droppedAttributesCount' | 'events' | 'droppedEventsCount' | 'links' | 'droppedLinksCount' | 'status'>;

/** Fields 10 to 15: the dropped attributes count, events and links with their dropped counts, and the status. */
function writeTail(writer: ProtobufWriter, span: SpanTail): void {
  writer.tag(10, VARINT);
  writer.varint(span.droppedAttributesCount);
  for (const event of span.events) {
    writer.tag(11, LENGTH_DELIMITED);
    writeEvent(writer, event);
  }
  writer.tag(12, VARINT);
  writer.varint(span.droppedEventsCount);
  for (const link of span.links) {
    writer.tag(13, LENGTH_DELIMITED);
    writeLink(writer, link);
  }
  writer.tag(14, VARINT);
  writer.varint(span.droppedLinksCount);
  writer.tag(15, LENGTH_DELIMITED);
  writeStatus(writer, span.status);
}

/** A span with nothing dropped, no events or links and no status set: most spans, whose fields 10 to 15 are always the same bytes. */
function isBare(span: SpanTail): boolean {
  return (
    span.droppedAttributesCount === 0 &&
    span.events.length === 0 &&
    span.droppedEventsCount === 0 &&
    span.links.length === 0 &&
    span.droppedLinksCount === 0 &&
    span.status.code === SpanStatusCode.UNSET &&
    span.status.message === undefined
  );
}

/** Fields 10 to 15 of a bare span, written once by the general path (so the two cannot differ) and copied for each such span. */
const BARE_TAIL = ((): Uint8Array => {
  const writer = new ProtobufWriter(Buffer.alloc(32));
  writeTail(writer, { droppedAttributesCount: 0, events: [], droppedEventsCount: 0, links: [], droppedLinksCount: 0, status: { code: SpanStatusCode.UNSET } });
  return writer.buffer.subarray(0, writer.pos);
})();
