import { createTraceState, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, TraceFlags, type Tracer } from '@opentelemetry/api';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { encodeTraceExportRequest } from './otlp-trace-protobuf.js';

/** A tracer provider of its own (not registered globally) and the spans it ended. */
function recording(attributes: Record<string, string>, schemaUrl?: string) {
  const exporter = new InMemorySpanExporter();
  const resource = resourceFromAttributes(attributes, schemaUrl === undefined ? {} : { schemaUrl });
  const provider = new BasicTracerProvider({ resource, spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { provider, spans: () => exporter.getFinishedSpans() };
}

/** What the SDK's own serializer writes: the reference the encoder must match byte for byte. */
const reference = (spans: ReadableSpan[]) => Buffer.from(ProtobufTraceSerializer.serializeRequest(spans)!);
const encoded = (spans: ReadableSpan[]) => Buffer.from(encodeTraceExportRequest(spans));

function requestSpans(tracer: Tracer): void {
  const server = tracer.startSpan('GET /plants', {
    kind: SpanKind.SERVER,
    attributes: { 'http.request.method': 'GET', 'http.route': '/plants', 'http.response.status_code': 200 },
  });
  const parent = trace.setSpan(ROOT_CONTEXT, server);
  const storage = tracer.startSpan('list plants', { kind: SpanKind.CLIENT, attributes: { 'db.system.name': 'sqlite' } }, parent);
  storage.end();
  server.end();
}

describe('encodeTraceExportRequest', () => {
  it('writes what the SDK serializer writes for a request and its storage call', () => {
    const { provider, spans } = recording({ 'service.name': 'plant-store' });
    requestSpans(provider.getTracer('@plant-store/http-node', '1.0.0'));
    expect(spans()).toHaveLength(2);
    expect(encoded(spans())).toEqual(reference(spans()));
  });

  it('writes every kind of attribute value, event, link, status and trace state alike', () => {
    const { provider, spans } = recording({ 'service.name': 'plant-store', 'service.version': '1.2.3' }, 'https://opentelemetry.io/schemas/1.30.0');
    const tracer = provider.getTracer('scope-a', '2.0.0', { schemaUrl: 'https://opentelemetry.io/schemas/1.29.0' });
    const other = provider.getTracer('scope-b');
    // A remote parent with a trace state, as `traceparent` and `tracestate` headers give it.
    const remote = trace.setSpanContext(ROOT_CONTEXT, {
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: 'b7ad6b7169203331',
      traceFlags: TraceFlags.SAMPLED,
      isRemote: true,
      traceState: createTraceState('vendor=value,other=thing'),
    });
    const span = tracer.startSpan(
      'everything',
      {
        kind: SpanKind.PRODUCER,
        attributes: {
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
        },
        links: [
          { context: { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', traceFlags: TraceFlags.SAMPLED, isRemote: true } },
          {
            context: { traceId: '4bf92f3577b34da6a3ce929d0e0e4737', spanId: '00f067aa0ba902b8', traceFlags: TraceFlags.NONE },
            attributes: { 'link.kind': 'created-by', count: 2 },
          },
        ],
      },
      remote,
    );
    span.addEvent('no attributes');
    span.addEvent('with attributes', { 'event.field': 'value', 'event.count': 3 });
    span.setStatus({ code: SpanStatusCode.ERROR, message: 'failed: ünïcode' });
    span.end();
    const plain = other.startSpan('internal');
    plain.setStatus({ code: SpanStatusCode.OK });
    plain.end();
    expect(spans()).toHaveLength(2);
    expect(encoded(spans())).toEqual(reference(spans()));
  });

  it('groups spans of several resources and scopes as the SDK does, in the order first seen', () => {
    const first = recording({ 'service.name': 'one' });
    const second = recording({ 'service.name': 'two', region: 'eu' });
    requestSpans(first.provider.getTracer('a'));
    requestSpans(second.provider.getTracer('b'));
    requestSpans(first.provider.getTracer('c', '1'));
    requestSpans(second.provider.getTracer('a'));
    const mixed = [...first.spans(), ...second.spans()].sort((x, y) => x.name.localeCompare(y.name));
    expect(encoded(mixed)).toEqual(reference(mixed));
  });

  it('writes a batch larger than its buffer, and lengths of several bytes at every level', () => {
    const { provider, spans } = recording({ 'service.name': 'plant-store' });
    const tracer = provider.getTracer('@plant-store/core');
    for (let index = 0; index < 1_200; index++) requestSpans(tracer);
    expect(spans()).toHaveLength(2_400);
    const bytes = encoded(spans());
    expect(bytes.length).toBeGreaterThan(64 * 1024);
    expect(bytes).toEqual(reference(spans()));
  });

  it('hands out bytes of their own: encoding the next batch does not change the last one', () => {
    const { provider, spans } = recording({ 'service.name': 'plant-store' });
    requestSpans(provider.getTracer('a'));
    const firstBatch = spans().slice();
    const first = encodeTraceExportRequest(firstBatch);
    const copy = Buffer.from(first);
    requestSpans(provider.getTracer('b'));
    encodeTraceExportRequest(spans().slice(2));
    expect(Buffer.from(first)).toEqual(copy);
    expect(Buffer.from(first)).toEqual(reference(firstBatch));
  });

  it('writes an empty request for no spans', () => {
    expect(encodeTraceExportRequest([])).toHaveLength(0);
  });
});
