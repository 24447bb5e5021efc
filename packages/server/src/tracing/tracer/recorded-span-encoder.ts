import { SpanStatusCode, TraceFlags } from '@opentelemetry/api';
import { CONTEXT_HAS_IS_REMOTE, CONTEXT_IS_REMOTE, writeEvent, writeLink, writeStatus } from '../otlp-trace-protobuf.js';
import { FIXED32, FIXED64, LENGTH_DELIMITED, ProtobufWriter, VARINT } from '../protobuf-writer.js';
import { writeAttributes } from './encoded-attributes.js';
import type { RecordedSpan } from './recorded-span.js';
import { writeEpochNanos } from './span-time.js';

/**
 * Appends `span` as one OTLP `Span` of a `ScopeSpans` message (its field 2),
 * field for field what the SDK's serializer writes for the same span (a
 * test decodes it): ids from their words, no hex in between, times from
 * milliseconds since the time origin.
 */
export function appendRecordedSpan(writer: ProtobufWriter, span: RecordedSpan): void {
  writer.tag(2, LENGTH_DELIMITED);
  const start = writer.begin();
  const traceId = span.traceId;
  writer.tag(1, LENGTH_DELIMITED);
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
  writeEpochNanos(writer, span.startTime);
  writer.tag(8, FIXED64);
  writeEpochNanos(writer, span.endTime);
  writeSpanContents(writer, span);
  writer.tag(16, FIXED32);
  writer.fixed32(TraceFlags.SAMPLED | CONTEXT_HAS_IS_REMOTE | (span.parent?.isRemote ? CONTEXT_IS_REMOTE : 0));
  writer.end(start);
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
