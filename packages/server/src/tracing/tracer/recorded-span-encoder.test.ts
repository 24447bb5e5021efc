import { createTraceState, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, TraceFlags } from '@opentelemetry/api';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { writeResourceSpans } from '../otlp-trace-protobuf.js';
import { ProtobufWriter } from '../protobuf-writer.js';
import { RecordedSpan } from './recorded-span.js';
import { appendRecordedSpan } from './recorded-span-encoder.js';
import { hexWord, TraceId } from './span-ids.js';
import { sinceOrigin } from './span-time.js';

const LIMITS = { attributeCountLimit: 128, attributeValueLengthLimit: Number.POSITIVE_INFINITY, eventCountLimit: 128, linkCountLimit: 128 };
const nowhere = { ended: () => undefined };

/** The SDK's spans, of one scope, and the request its own serializer writes for them: the reference. */
function sdkSpans(record: (tracer: ReturnType<BasicTracerProvider['getTracer']>) => void) {
  const exporter = new InMemorySpanExporter();
  const resource = resourceFromAttributes({ 'service.name': 'plant-store' });
  const provider = new BasicTracerProvider({ resource, spanProcessors: [new SimpleSpanProcessor(exporter)] });
  record(provider.getTracer('@plant-store/http-node', '1.0.0'));
  const spans = exporter.getFinishedSpans();
  return { resource, spans, reference: Buffer.from(ProtobufTraceSerializer.serializeRequest(spans)!) };
}

/** The same span as this tracer records it: same ids, times and calls. */
function recordedCopy(span: ReadableSpan): RecordedSpan {
  const context = span.spanContext();
  const parent = span.parentSpanContext;
  const copy = new RecordedSpan(
    {
      traceId: TraceId.fromHex(context.traceId),
      spanIdHigh: hexWord(context.spanId, 0),
      spanIdLow: hexWord(context.spanId, 8),
      traceState: context.traceState,
      parent: parent && { spanIdHigh: hexWord(parent.spanId, 0), spanIdLow: hexWord(parent.spanId, 8), isRemote: parent.isRemote === true },
      name: span.name,
      kind: span.kind,
      startTime: sinceOrigin(span.startTime),
    },
    LIMITS,
    nowhere,
  );
  copy.setAttributes(span.attributes);
  for (const event of span.events) copy.addEvent(event.name, event.attributes, event.time);
  copy.addLinks(span.links);
  copy.setStatus(span.status);
  copy.end(span.endTime);
  return copy;
}

function encoded(resource: ReturnType<typeof resourceFromAttributes>, spans: readonly ReadableSpan[]): Buffer {
  const spanWriter = new ProtobufWriter(Buffer.alloc(64));
  for (const span of spans) appendRecordedSpan(spanWriter, recordedCopy(span));
  const writer = new ProtobufWriter(Buffer.alloc(64));
  writeResourceSpans(writer, resource, [{ scope: spans[0]!.instrumentationScope, spans: spanWriter.buffer.subarray(0, spanWriter.pos) }]);
  return Buffer.from(writer.buffer.subarray(0, writer.pos));
}

describe('appendRecordedSpan', () => {
  it('writes a request and its storage call byte for byte as the SDK serializer writes them', () => {
    const { resource, spans, reference } = sdkSpans((tracer) => {
      const server = tracer.startSpan('GET', { kind: SpanKind.SERVER, attributes: { 'http.request.method': 'GET', 'url.scheme': 'http' } });
      const storage = tracer.startSpan('listJson plants', { kind: SpanKind.CLIENT, attributes: { 'db.system.name': 'sqlite' } }, trace.setSpan(ROOT_CONTEXT, server));
      storage.end();
      server.setAttribute('http.response.status_code', 200);
      server.updateName('GET /plants');
      server.end();
    });
    expect(encoded(resource, spans)).toEqual(reference);
    // Again: the second time, the repeated attributes are copied from what the first time encoded.
    expect(encoded(resource, spans)).toEqual(reference);
  });

  it('writes every kind of attribute, events, links, an error status and a remote parent with a trace state alike', () => {
    const remote = trace.setSpanContext(ROOT_CONTEXT, {
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: 'b7ad6b7169203331',
      traceFlags: TraceFlags.SAMPLED,
      isRemote: true,
      traceState: createTraceState('vendor=value'),
    });
    const { resource, spans, reference } = sdkSpans((tracer) => {
      const attributes = { text: 'plante 🌱', long: 'x'.repeat(300), int: 42, negative: -7, float: 3.25, yes: true, strings: ['a', 'b'], numbers: [1, 2.5] };
      const link = { context: { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', traceFlags: TraceFlags.SAMPLED, isRemote: true }, attributes: { why: 'queued by' } };
      const span = tracer.startSpan('everything', { kind: SpanKind.PRODUCER, attributes, links: [link] }, remote);
      span.addEvent('retry', { attempt: 2 });
      span.setStatus({ code: SpanStatusCode.ERROR, message: 'receiver answered 503' });
      span.end();
    });
    expect(encoded(resource, spans)).toEqual(reference);
  });
});
