import { createTraceState, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, TraceFlags, type Tracer } from '@opentelemetry/api';
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

/** The SDK's spans and the request its own serializer writes for them: the reference. */
function sdkSpans(record: (provider: BasicTracerProvider) => void) {
  const exporter = new InMemorySpanExporter();
  const resource = resourceFromAttributes({ 'service.name': 'plant-store' });
  const provider = new BasicTracerProvider({ resource, spanProcessors: [new SimpleSpanProcessor(exporter)] });
  record(provider);
  const spans = exporter.getFinishedSpans();
  return { resource, spans, reference: Buffer.from(ProtobufTraceSerializer.serializeRequest(spans)!) };
}

function requestSpans(tracer: Tracer): void {
  const server = tracer.startSpan('GET', { kind: SpanKind.SERVER, attributes: { 'http.request.method': 'GET', 'url.scheme': 'http' } });
  const storage = tracer.startSpan('listJson plants', { kind: SpanKind.CLIENT, attributes: { 'db.system.name': 'sqlite' } }, trace.setSpan(ROOT_CONTEXT, server));
  storage.end();
  server.setAttribute('http.response.status_code', 200);
  server.updateName('GET /plants');
  server.end();
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
      spanIdDigits: context.spanId,
      spanIdAt: 0,
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

/** The same spans as this tracer encodes them: each appended to its scope's spans as it ends, then one request around them. */
function encoded(resource: ReturnType<typeof resourceFromAttributes>, spans: readonly ReadableSpan[]): Buffer {
  const scopes = new Map<ReadableSpan['instrumentationScope'], ProtobufWriter>();
  for (const span of spans) {
    let scopeWriter = scopes.get(span.instrumentationScope);
    if (scopeWriter === undefined) scopes.set(span.instrumentationScope, (scopeWriter = new ProtobufWriter(Buffer.alloc(64))));
    appendRecordedSpan(scopeWriter, recordedCopy(span));
  }
  const writer = new ProtobufWriter(Buffer.alloc(64));
  writeResourceSpans(writer, resource, [...scopes].map(([scope, scopeWriter]) => ({ scope, spans: scopeWriter.buffer.subarray(0, scopeWriter.pos) })));
  return Buffer.from(writer.buffer.subarray(0, writer.pos));
}

describe('appendRecordedSpan', () => {
  it('writes a request and its storage call byte for byte as the SDK serializer writes them', () => {
    const { resource, spans, reference } = sdkSpans((provider) => requestSpans(provider.getTracer('@plant-store/http-node', '1.0.0')));
    expect(encoded(resource, spans)).toEqual(reference);
    // Again: the second time, the repeated attributes are copied from what the first time encoded.
    expect(encoded(resource, spans)).toEqual(reference);
  });

  it('writes every kind of attribute, events, links, statuses, scopes and a remote parent with a trace state alike', () => {
    const remote = trace.setSpanContext(ROOT_CONTEXT, {
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: 'b7ad6b7169203331',
      traceFlags: TraceFlags.SAMPLED,
      isRemote: true,
      traceState: createTraceState('vendor=value,other=thing'),
    });
    const { resource, spans, reference } = sdkSpans((provider) => {
      const tracer = provider.getTracer('scope-a', '2.0.0', { schemaUrl: 'https://opentelemetry.io/schemas/1.29.0' });
      const links = [
        { context: { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', traceFlags: TraceFlags.SAMPLED, isRemote: true } },
        { context: { traceId: '4bf92f3577b34da6a3ce929d0e0e4737', spanId: '00f067aa0ba902b8', traceFlags: TraceFlags.NONE }, attributes: { 'link.kind': 'created-by', count: 2 } },
      ];
      const span = tracer.startSpan('everything', { kind: SpanKind.PRODUCER, attributes: EVERY_KIND_OF_VALUE, links }, remote);
      span.addEvent('no attributes');
      span.addEvent('with attributes', { 'event.field': 'value', 'event.count': 3 });
      span.setStatus({ code: SpanStatusCode.ERROR, message: 'failed: ünïcode' });
      span.end();
      const plain = provider.getTracer('scope-b').startSpan('internal');
      plain.setStatus({ code: SpanStatusCode.OK });
      plain.end();
    });
    expect(spans).toHaveLength(2);
    expect(encoded(resource, spans)).toEqual(reference);
  });

  it('writes spans of one shape again with their own ids and times, whatever their parent', () => {
    const { resource, spans, reference } = sdkSpans((provider) => {
      const tracer = provider.getTracer('@plant-store/core');
      for (let index = 0; index < 3; index++) {
        const remote = trace.setSpanContext(ROOT_CONTEXT, {
          traceId: `${index}af7651916cd43dd8448eb211c80319c`,
          spanId: `${index}7ad6b7169203331`,
          traceFlags: TraceFlags.SAMPLED,
          isRemote: true,
        });
        const root = tracer.startSpan('shaped', { kind: SpanKind.SERVER, attributes: { 'http.route': '/plants', array: ['kept'] } });
        const local = tracer.startSpan('shaped', { kind: SpanKind.SERVER, attributes: { 'http.route': '/plants' } }, trace.setSpan(ROOT_CONTEXT, root));
        const fromRemote = tracer.startSpan('shaped', { kind: SpanKind.SERVER, attributes: { 'http.route': '/plants' } }, remote);
        // A few seconds before the time origin: written through HrTime, never from a shape.
        const before = Math.floor(performance.timeOrigin / 1000) - 3 + index;
        const early = tracer.startSpan('shaped', { kind: SpanKind.SERVER, attributes: { 'http.route': '/plants' }, startTime: [before, 5] });
        for (const span of [fromRemote, local, root]) span.end();
        early.end([before + 1, 7]);
      }
    });
    expect(spans).toHaveLength(12);
    expect(encoded(resource, spans)).toEqual(reference);
  });

  it('writes lengths of several bytes at every level, in a request larger than its first buffer', () => {
    const { resource, spans, reference } = sdkSpans((provider) => {
      const tracer = provider.getTracer('@plant-store/core');
      for (let index = 0; index < 1_200; index++) requestSpans(tracer);
    });
    const bytes = encoded(resource, spans);
    expect(bytes.length).toBeGreaterThan(64 * 1024);
    expect(bytes).toEqual(reference);
  });
});

const EVERY_KIND_OF_VALUE = {
  text: 'plain',
  empty: '',
  unicode: 'plante 🌱 é — 植物',
  long: 'x'.repeat(300),
  longer: 'é'.repeat(9_000),
  zero: 0,
  int: 42,
  negative: -7,
  large: 2 ** 40,
  largeNegative: -(2 ** 40),
  maxSafe: Number.MAX_SAFE_INTEGER,
  minSafe: Number.MIN_SAFE_INTEGER,
  beyondInt64: 2 ** 64,
  float: 3.25,
  negativeFloat: -0.5,
  nan: Number.NaN,
  yes: true,
  no: false,
  strings: ['a', 'b', ''],
  numbers: [1, 2.5, -3],
  booleans: [true, false],
  withHoles: ['a', null, undefined, 'b'],
};
