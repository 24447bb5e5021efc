import { randomBytes } from 'node:crypto';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, TraceFlags, type Span } from '@opentelemetry/api';
import { suppressTracing } from '@opentelemetry/core';
import { BasicTracerProvider, TraceIdRatioBasedSampler, SamplingDecision, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { decodeTraceRequest } from '../../../../../test/support/otlp-protobuf.js';
import { traceIdsIn } from '../../logging/active-trace-ids.js';
import { LightTracerProvider } from './light-tracer-provider.js';
import type { RecordedSpan } from './recorded-span.js';
import type { EncodedBatch } from './span-batches.js';
import { TraceId } from './span-ids.js';
import { samplerFromEnv } from './span-sampler.js';
import { tracerSettings } from './tracer-settings.js';

interface DecodedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: { key: string; value: Record<string, unknown> }[];
  links: { traceId: string; spanId: string }[];
  status?: { code: number; message?: string };
}

/** A provider whose batches are kept in memory, and the spans they carry, decoded. */
function tracing(env: NodeJS.ProcessEnv = {}) {
  const batches: EncodedBatch[] = [];
  const provider = new LightTracerProvider({ attributes: { 'service.name': 'plant-store' } } as never, tracerSettings(env), {
    send(batch, done) {
      // A copy: the buffer takes the next batch once this one is done.
      batches.push({ body: Buffer.from(batch.body), spanCount: batch.spanCount });
      done();
    },
    shutdown: async () => undefined,
  });
  const exported = async (): Promise<DecodedSpan[]> => {
    await provider.forceFlush();
    return batches.flatMap((batch) => {
      const request = decodeTraceRequest(batch.body) as { resourceSpans: { scopeSpans: { spans: DecodedSpan[] }[] }[] };
      return request.resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans));
    });
  };
  return { provider, tracer: provider.getTracer('test'), exported };
}

const attribute = (span: DecodedSpan, key: string) => span.attributes.find((entry) => entry.key === key)?.value;

describe('LightTracerProvider', () => {
  it('exports a child in its parent’s trace, with the ids spanContext() gave, its attributes, final name and status', async () => {
    const { tracer, exported } = tracing();
    const server = tracer.startSpan('GET', { kind: SpanKind.SERVER, attributes: { 'http.request.method': 'GET' } }, ROOT_CONTEXT);
    const child = tracer.startSpan('list plants', { kind: SpanKind.CLIENT }, trace.setSpan(ROOT_CONTEXT, server));
    child.setStatus({ code: SpanStatusCode.ERROR, message: 'disk full' });
    child.end();
    server.setAttribute('http.response.status_code', 200);
    server.updateName('GET /plants');
    server.end();
    const [childSpan, serverSpan] = await exported();
    expect(serverSpan).toMatchObject({ traceId: server.spanContext().traceId, spanId: server.spanContext().spanId, name: 'GET /plants', kind: 2 });
    expect(serverSpan!.parentSpanId).toBeUndefined();
    expect(serverSpan!.attributes).toEqual([
      { key: 'http.request.method', value: { stringValue: 'GET' } },
      { key: 'http.response.status_code', value: { intValue: '200' } },
    ]);
    expect(childSpan).toMatchObject({ traceId: server.spanContext().traceId, spanId: child.spanContext().spanId, parentSpanId: server.spanContext().spanId, kind: 3 });
    expect(childSpan!.status).toEqual({ code: SpanStatusCode.ERROR, message: 'disk full' });
    expect(server.spanContext()).toMatchObject({ traceFlags: TraceFlags.SAMPLED });
    expect(server.spanContext().traceId).toMatch(/^[0-9a-f]{32}$/);
  });

  it('continues a remote trace and links to another', async () => {
    const { tracer, exported } = tracing();
    const remote = trace.setSpanContext(ROOT_CONTEXT, { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: 1, isRemote: true });
    const linked = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', traceFlags: 1 };
    tracer.startSpan('POST', { links: [{ context: linked }] }, remote).end();
    const [span] = await exported();
    expect(span).toMatchObject({ traceId: '0af7651916cd43dd8448eb211c80319c', parentSpanId: 'b7ad6b7169203331', links: [{ traceId: linked.traceId, spanId: linked.spanId }] });
  });

  it('starts a new trace for a root span even inside another span', async () => {
    const { tracer } = tracing();
    const outer = tracer.startSpan('outer', {}, ROOT_CONTEXT);
    const root = tracer.startSpan('attempt', { root: true }, trace.setSpan(ROOT_CONTEXT, outer));
    expect(root.spanContext().traceId).not.toBe(outer.spanContext().traceId);
  });

  it('starts no span where tracing is suppressed, as the SDK’s tracer does not', async () => {
    const { tracer, exported } = tracing();
    const outer = tracer.startSpan('outer', {}, ROOT_CONTEXT);
    const suppressed = tracer.startSpan('export', {}, suppressTracing(trace.setSpan(ROOT_CONTEXT, outer)));
    expect(suppressed.isRecording()).toBe(false);
    expect(trace.isSpanContextValid(suppressed.spanContext())).toBe(false);
    suppressed.end();
    outer.end();
    expect((await exported()).map((span) => span.name)).toEqual(['outer']);
  });

  it('keeps the SDK’s rules: attribute limits, invalid values, a final OK status, nothing after end', async () => {
    const { tracer, exported } = tracing({ OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT: '2', OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: '4' });
    const span = tracer.startSpan('limits', {}, ROOT_CONTEXT);
    span.setAttribute('a', 'abcdefgh');
    span.setAttribute('b', 1);
    span.setAttribute('a', 'xy');
    span.setAttribute('c', 'dropped');
    span.setAttribute('d', { not: 'an attribute' } as never);
    span.setStatus({ code: SpanStatusCode.OK });
    span.setStatus({ code: SpanStatusCode.ERROR, message: 'too late' });
    span.end();
    span.setAttribute('e', 'after end');
    span.updateName('renamed after end');
    expect(span.isRecording()).toBe(false);
    const [decoded] = await exported();
    expect(decoded!.name).toBe('limits');
    expect(decoded!.attributes).toEqual([
      { key: 'a', value: { stringValue: 'xy' } },
      { key: 'b', value: { intValue: '1' } },
    ]);
    expect(decoded!.status).toEqual({ code: SpanStatusCode.OK });
  });

  it('starts spans with a frozen options object’s attributes, each span changing only its own', async () => {
    const { tracer, exported } = tracing({ OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT: '3', OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: '4' });
    const options = Object.freeze({ kind: SpanKind.CLIENT, attributes: Object.freeze({ op: 'create', table: 'plants' }) });
    const first = tracer.startSpan('create plants', options, ROOT_CONTEXT);
    first.setAttribute('op', 'changed');
    first.setAttribute('extra', 1);
    first.setAttribute('dropped', 2);
    first.end();
    tracer.startSpan('create plants', options, ROOT_CONTEXT).end();
    // Over the count limit, frozen or not, the attributes are set one by one, as the SDK drops them.
    const many = Object.freeze({ attributes: Object.freeze({ a: 1, b: 2, c: 3, d: 4 }) });
    tracer.startSpan('many', many, ROOT_CONTEXT).end();
    tracer.startSpan('many', many, ROOT_CONTEXT).end();
    const [changed, untouched, ...limited] = await exported();
    expect(changed!.attributes).toEqual([
      { key: 'op', value: { stringValue: 'chan' } },
      { key: 'table', value: { stringValue: 'plan' } },
      { key: 'extra', value: { intValue: '1' } },
    ]);
    expect(untouched!.attributes).toEqual([
      { key: 'op', value: { stringValue: 'crea' } },
      { key: 'table', value: { stringValue: 'plan' } },
    ]);
    for (const span of limited) expect(span.attributes.map((entry) => entry.key)).toEqual(['a', 'b', 'c']);
    expect(options.attributes).toEqual({ op: 'create', table: 'plants' });
  });

  it('cuts strings to the value length limit', async () => {
    const { tracer, exported } = tracing({ OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: '4' });
    tracer.startSpan('cut', { attributes: { text: 'abcdefgh', list: ['abcdefgh', 'ab'] } }, ROOT_CONTEXT).end();
    const [decoded] = await exported();
    expect(attribute(decoded!, 'text')).toEqual({ stringValue: 'abcd' });
  });

  it('records nothing the sampler leaves out, but gives its spans valid ids and passes the decision on', async () => {
    const { tracer, exported } = tracing({ OTEL_TRACES_SAMPLER: 'parentbased_always_off' });
    const root = tracer.startSpan('request', {}, ROOT_CONTEXT);
    expect(root.isRecording()).toBe(false);
    expect(trace.isSpanContextValid(root.spanContext())).toBe(true);
    expect(root.spanContext().traceFlags).toBe(TraceFlags.NONE);
    const child = tracer.startSpan('storage', {}, trace.setSpan(ROOT_CONTEXT, root));
    expect(child.spanContext().traceId).toBe(root.spanContext().traceId);
    child.end();
    root.end();
    // A sampled remote parent is followed.
    const sampledRemote = trace.setSpanContext(ROOT_CONTEXT, { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: 1, isRemote: true });
    const followed: Span = tracer.startSpan('continued', {}, sampledRemote);
    expect(followed.isRecording()).toBe(true);
    followed.end();
    expect((await exported()).map((span) => span.name)).toEqual(['continued']);
  });

  it('marks the log ids of its spans, recorded or not, as hex, and no other span’s', () => {
    const { tracer } = tracing({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.5' });
    const spans = Array.from({ length: 40 }, (_, index) => tracer.startSpan(`span ${index}`, {}, ROOT_CONTEXT));
    // Both kinds, recorded and left out.
    expect(new Set(spans.map((span) => span.isRecording()))).toEqual(new Set([true, false]));
    for (const span of spans) {
      const ids = traceIdsIn(trace.setSpan(ROOT_CONTEXT, span))!;
      expect(ids).toEqual({ traceId: span.spanContext().traceId, spanId: span.spanContext().spanId, hex: true });
      expect(ids.traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(ids.spanId).toMatch(/^[0-9a-f]{16}$/);
    }
    // Unsampled below a remote parent: the parent's trace id, validated by the API before it is taken.
    const remote = trace.setSpanContext(ROOT_CONTEXT, { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: 0, isRemote: true });
    expect(traceIdsIn(trace.setSpan(ROOT_CONTEXT, tracer.startSpan('child', {}, remote)))).toMatchObject({ traceId: '0af7651916cd43dd8448eb211c80319c', hex: true });
    // Another tracer's span (here the API's wrapper of a context) vouches for nothing: its ids are serialized, escaped.
    expect(traceIdsIn(remote)).toMatchObject({ traceId: '0af7651916cd43dd8448eb211c80319c', hex: false });
  });

  it('records exceptions as events exactly as the SDK’s spans do', () => {
    const { tracer } = tracing();
    const sdkTracer = new BasicTracerProvider().getTracer('test');
    const coded = Object.assign(new Error('connection refused'), { code: 'ECONNREFUSED' });
    for (const exception of [new TypeError('not a function'), coded, 'plain message', { message: 'no name' }]) {
      const ours = tracer.startSpan('ours') as RecordedSpan;
      const theirs = sdkTracer.startSpan('theirs') as unknown as ReadableSpan & Span;
      ours.recordException(exception);
      theirs.recordException(exception);
      expect(ours.events.map(({ name, attributes }) => ({ name, attributes }))).toEqual(theirs.events.map(({ name, attributes }) => ({ name, attributes })));
    }
  });

  it('samples a ratio of trace ids exactly as the SDK’s TraceIdRatioBasedSampler does', () => {
    const ours = samplerFromEnv({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.3' });
    const sdk = new TraceIdRatioBasedSampler(0.3);
    let sampled = 0;
    for (let count = 0; count < 2000; count++) {
      const hex = randomBytes(16).toString('hex');
      const expected = sdk.shouldSample(ROOT_CONTEXT, hex).decision === SamplingDecision.RECORD_AND_SAMPLED;
      expect(ours(undefined, TraceId.fromHex(hex))).toBe(expected);
      if (expected) sampled++;
    }
    expect(sampled).toBeGreaterThan(400);
    expect(sampled).toBeLessThan(800);
  });
});
