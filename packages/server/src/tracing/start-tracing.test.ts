import { executionAsyncId } from 'node:async_hooks';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { context, propagation, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { silentLogger } from '@plant-store/core/adapter';
import { startOtlpSink } from '../../../../test/support/otlp-sink.js';
import { startTracing } from './start-tracing.js';
import { CHAINED_ROOT, SynchronousContextManager } from './synchronous-context-manager.js';

/**
 * The async id a promise reaction runs under: 0 while Node tracks no
 * promises, non-zero once anything turned on the promise hooks
 * (`AsyncLocalStorage` does on its first use, for every promise in the process, for good).
 */
function promiseReactionAsyncId(): Promise<number> {
  return new Promise((resolve) => setImmediate(() => void Promise.resolve().then(() => resolve(executionAsyncId()))));
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('startTracing', () => {
  it('registers a context manager that does not follow promises, so that no promise hook is turned on', async () => {
    // This process tracks no promises yet, so what follows can tell.
    expect(await promiseReactionAsyncId()).toBe(0);
    // Sampling nothing: spans still get valid ids, and there is nothing to export.
    vi.stubEnv('OTEL_TRACES_SAMPLER', 'always_off');
    const tracing = await startTracing('0.0.0-test', 'http/protobuf', process.env, silentLogger);
    try {
      expect((context as unknown as { _getContextManager(): unknown })._getContextManager()).toBeInstanceOf(SynchronousContextManager);
      const span = trace.getTracer('test').startSpan('request');
      expect(span.spanContext().traceId).not.toBe('0'.repeat(32));
      const resumed = await context.with(trace.setSpan(ROOT_CONTEXT, span), async () => {
        expect(trace.getActiveSpan()).toBe(span);
        await Promise.resolve();
        return context.active();
      });
      span.end();
      expect(resumed).toBe(CHAINED_ROOT);
      expect(await promiseReactionAsyncId()).toBe(0);
    } finally {
      expect(await tracing.shutdown(500)).toBe(true);
    }
    expect(trace.getActiveSpan()).toBeUndefined();
  });
});

describe('startTracing: batches', () => {
  it.each(['http/protobuf', 'http/json'] as const)('exports up to 4,096 spans a request by default, and what OTEL_BSP_* say when set (%s)', async (protocol) => {
    const sink = await startOtlpSink();
    try {
      // The SDK's transport reads its variables from the process environment.
      vi.stubEnv('OTEL_EXPORTER_OTLP_ENDPOINT', sink.url);
      for (const [env, expected] of [
        [{}, [4096, 4]],
        [{ OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '1000' }, [1000, 1000, 1000, 1000, 100]],
      ] as const) {
        sink.batchSizes.length = 0;
        // A schedule far off: a batch leaves because it is full, or at shutdown.
        const tracing = await startTracing('0.0.0-test', protocol, { ...env, OTEL_BSP_SCHEDULE_DELAY: '60000' }, silentLogger);
        const tracer = trace.getTracer('test');
        for (let index = 0; index < 4100; index++) tracer.startSpan('request', {}, ROOT_CONTEXT).end();
        expect(await tracing.shutdown(10_000)).toBe(true);
        // Largest first: the last batch, sent at shutdown, may overtake a full one on another connection.
        expect([...sink.batchSizes].sort((a, b) => b - a)).toEqual(expected);
      }
    } finally {
      await sink.close();
    }
  });
});

describe('startTracing: propagators', () => {
  // Sampling nothing: no span is exported, so no collector is needed.
  const env = { OTEL_TRACES_SAMPLER: 'always_off' };

  it('registers the ones OTEL_PROPAGATORS names (W3C trace context and baggage by default), none for none', async () => {
    for (const [propagators, fields] of [
      [undefined, ['traceparent', 'tracestate', 'baggage']],
      ['tracecontext', ['traceparent', 'tracestate']],
      ['none', []],
    ] as const) {
      const tracing = await startTracing('0.0.0-test', 'http/protobuf', propagators === undefined ? env : { ...env, OTEL_PROPAGATORS: propagators }, silentLogger);
      try {
        expect(propagation.fields()).toEqual(fields);
        const span = trace.getTracer('test').startSpan('request', {}, ROOT_CONTEXT);
        const headers: Record<string, string> = {};
        propagation.inject(trace.setSpan(ROOT_CONTEXT, span), headers);
        expect(Object.keys(headers)).toEqual(fields.length === 0 ? [] : ['traceparent']);
      } finally {
        await tracing.shutdown(500);
      }
    }
  });
});

describe('startTracing: problems', () => {
  it('logs an export the collector refused as a warning of the service', async () => {
    const collector = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(400, { 'content-type': 'text/plain' }).end('no'));
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    try {
      const warnings: string[] = [];
      const logger = { debug() {}, info() {}, error() {}, warn: (message: string) => warnings.push(message) };
      // The SDK's transport reads its variables from the process environment.
      vi.stubEnv('OTEL_EXPORTER_OTLP_ENDPOINT', `http://127.0.0.1:${(collector.address() as AddressInfo).port}`);
      const tracing = await startTracing('0.0.0-test', 'http/protobuf', process.env, logger);
      trace.getTracer('test').startSpan('request', {}, ROOT_CONTEXT).end();
      expect(await tracing.shutdown(5_000)).toBe(true);
      expect(warnings).toContain('tracing: an export of spans failed; they are dropped');
    } finally {
      await new Promise((resolve) => collector.close(resolve));
    }
  });

  it('logs a variable that does not parse as a warning, from the start', async () => {
    const warnings: string[] = [];
    const logger = { debug() {}, info() {}, error() {}, warn: (message: string) => warnings.push(message) };
    vi.stubEnv('OTEL_EXPORTER_OTLP_ENDPOINT', 'http://127.0.0.1:9');
    const tracing = await startTracing('0.0.0-test', 'http/protobuf', { OTEL_BSP_MAX_QUEUE_SIZE: 'lots' }, logger);
    expect(await tracing.shutdown(500)).toBe(true);
    expect(warnings).toContain('tracing: OTEL_BSP_MAX_QUEUE_SIZE=lots is not a positive integer; using 16384.');
  });

  it('warns at start of what the environment asks for that the service does not do', async () => {
    const warnings: string[] = [];
    const logger = { debug() {}, info() {}, error() {}, warn: (message: string) => warnings.push(message) };
    const tracing = await startTracing('0.0.0-test', 'http/protobuf', { OTEL_TRACES_SAMPLER: 'always_off', OTEL_PROPAGATORS: 'b3,tracecontext' }, logger);
    expect(await tracing.shutdown(500)).toBe(true);
    expect(warnings).toContain('tracing: OTEL_PROPAGATORS: only tracecontext and baggage are supported; ignoring b3');
  });
});
