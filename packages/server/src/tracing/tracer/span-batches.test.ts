import { ROOT_CONTEXT } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { countTraceRequestSpans, decodeTraceRequest } from '../../../../../test/support/otlp-protobuf.js';
import { LightTracerProvider } from './light-tracer-provider.js';
import type { EncodedBatch } from './span-batches.js';
import { tracerSettings } from './tracer-settings.js';

/** A provider with the given `OTEL_BSP_*` settings whose exporter keeps what it is sent, answering at once or when told. */
function batching(env: NodeJS.ProcessEnv, answer: 'at once' | 'when told' = 'at once') {
  const sent: EncodedBatch[] = [];
  // Each body as it was when sent: a buffer is written again once the exporter is done with it.
  const asSent: Buffer[] = [];
  const pending: (() => void)[] = [];
  let shutDown = false;
  const provider = new LightTracerProvider({ attributes: { 'service.name': 'plant-store' } } as never, tracerSettings(env), {
    send(batch, done) {
      sent.push(batch);
      asSent.push(Buffer.from(batch.body));
      if (answer === 'at once') done();
      else pending.push(done);
    },
    async shutdown() {
      shutDown = true;
    },
  });
  const tracer = provider.getTracer('test');
  const spans = (count: number) => {
    for (let index = 0; index < count; index++) tracer.startSpan(`span ${index}`, {}, ROOT_CONTEXT).end();
  };
  const answerOne = () => pending.shift()?.();
  return { provider, spans, sent, asSent, answerOne, isShutDown: () => shutDown };
}

const spanNames = (body: Uint8Array) =>
  (decodeTraceRequest(body) as { resourceSpans: { scopeSpans: { spans: { name: string }[] }[] }[] }).resourceSpans.flatMap((resource) =>
    resource.scopeSpans.flatMap((scope) => scope.spans.map((span) => span.name)),
  );

describe('SpanBatches', () => {
  it('sends a batch as soon as it holds the batch size, and the rest when flushed', async () => {
    const { provider, spans, sent, asSent } = batching({ OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '3', OTEL_BSP_SCHEDULE_DELAY: '60000' });
    spans(7);
    expect(sent.map((batch) => batch.spanCount)).toEqual([3, 3]);
    expect(spanNames(asSent[0]!)).toEqual(['span 0', 'span 1', 'span 2']);
    await provider.forceFlush();
    expect(asSent.map((body) => countTraceRequestSpans(body))).toEqual([3, 3, 1]);
  });

  it('sends a batch that is not full once the schedule delay has passed since its first span', async () => {
    const { spans, sent } = batching({ OTEL_BSP_SCHEDULE_DELAY: '30' });
    spans(2);
    expect(sent).toHaveLength(0);
    const deadline = Date.now() + 5_000;
    while (sent.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(sent.map((batch) => batch.spanCount)).toEqual([2]);
  });

  it('sends one batch at a time, and drops the spans past the queue size while they wait', async () => {
    const { provider, spans, sent, answerOne } = batching({ OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '2', OTEL_BSP_MAX_QUEUE_SIZE: '4', OTEL_BSP_SCHEDULE_DELAY: '60000' }, 'when told');
    // The first batch is sent; the next two (four spans) wait; the last three find the queue full.
    spans(9);
    expect(sent).toHaveLength(1);
    answerOne();
    expect(sent).toHaveLength(2);
    const flushed = provider.forceFlush();
    answerOne();
    answerOne();
    await flushed;
    expect(sent.map((batch) => batch.spanCount)).toEqual([2, 2, 2]);
    expect(spanNames(sent[2]!.body)).toEqual(['span 4', 'span 5']);
  });

  it('sends the next batch when an export outlasts the export timeout', async () => {
    const { spans, sent } = batching({ OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '1', OTEL_BSP_EXPORT_TIMEOUT: '20', OTEL_BSP_SCHEDULE_DELAY: '60000' }, 'when told');
    spans(2);
    expect(sent).toHaveLength(1);
    const deadline = Date.now() + 5_000;
    while (sent.length === 1 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(sent).toHaveLength(2);
  });

  it('leaves a body as it was until the exporter is done with it, then writes the next batch into its buffer', () => {
    const { spans, sent, answerOne } = batching({ OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '2', OTEL_BSP_SCHEDULE_DELAY: '60000' }, 'when told');
    spans(2);
    const first = Buffer.from(sent[0]!.body);
    // Two more batches wait while the first is being sent: each in a buffer of its own.
    spans(4);
    expect(Buffer.from(sent[0]!.body)).toEqual(first);
    answerOne();
    expect(sent[1]!.body.buffer).not.toBe(sent[0]!.body.buffer);
    // The first is done with: the batch sealed next is written where it was.
    spans(2);
    expect(spanNames(sent[1]!.body)).toEqual(['span 0', 'span 1']);
    answerOne();
    answerOne();
    expect(sent.map((batch) => batch.spanCount)).toEqual([2, 2, 2, 2]);
    expect(sent[3]!.body.buffer).toBe(sent[0]!.body.buffer);
    expect(spanNames(sent[3]!.body)).toEqual(['span 0', 'span 1']);
  });

  it('does not reuse the buffer of a batch given up on for its export timeout (it may still be being sent)', async () => {
    const { spans, sent, asSent } = batching({ OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '1', OTEL_BSP_EXPORT_TIMEOUT: '20', OTEL_BSP_SCHEDULE_DELAY: '60000' }, 'when told');
    spans(1);
    // A span a turn, a batch each: no export is answered, so each is given up on after 20 ms and the next sent.
    const deadline = Date.now() + 5_000;
    while (sent.length < 3 && Date.now() < deadline) {
      spans(1);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(sent.length).toBeGreaterThanOrEqual(3);
    // Every body still holds what it was sent with. (Comparing their ArrayBuffers would not do: from Node 24 on,
    // Buffer.allocUnsafe takes buffers of this size from a shared pool, so distinct bodies share one ArrayBuffer.)
    expect(sent.map((batch) => Buffer.from(batch.body))).toEqual(asSent);
  });

  it('sends what is left when shut down, shuts the exporter down, then ignores spans', async () => {
    const { provider, spans, sent, isShutDown } = batching({ OTEL_BSP_SCHEDULE_DELAY: '60000' });
    spans(5);
    await provider.shutdown();
    expect(sent.map((batch) => batch.spanCount)).toEqual([5]);
    expect(isShutDown()).toBe(true);
    spans(3);
    await provider.forceFlush();
    expect(sent).toHaveLength(1);
  });
});
