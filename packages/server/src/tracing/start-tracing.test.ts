import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { context, propagation, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { silentLogger } from '@plant-store/core/adapter';
import { startOtlpSink } from '../../../../test/support/otlp-sink.js';
import { startTracing } from './start-tracing.js';

/** A logger keeping its warnings. */
function warningsLogger() {
  const warnings: string[] = [];
  return { warnings, logger: { debug() {}, info() {}, error() {}, warn: (message: string) => warnings.push(message) } };
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('startTracing', () => {
  it('registers the AsyncLocalStorage context manager: the active span follows await', async () => {
    // Sampling nothing: spans still get valid ids, and there is nothing to export.
    vi.stubEnv('OTEL_TRACES_SAMPLER', 'always_off');
    const tracing = await startTracing('0.0.0-test', silentLogger);
    try {
      expect((context as unknown as { _getContextManager(): unknown })._getContextManager()).toBeInstanceOf(AsyncLocalStorageContextManager);
      const span = trace.getTracer('test').startSpan('request');
      expect(span.spanContext().traceId).not.toBe('0'.repeat(32));
      const resumed = await context.with(trace.setSpan(ROOT_CONTEXT, span), async () => {
        await new Promise((resolve) => setTimeout(resolve, 1));
        return trace.getActiveSpan();
      });
      span.end();
      expect(resumed).toBe(span);
    } finally {
      expect(await tracing.shutdown(500)).toBe(true);
    }
    expect(trace.getActiveSpan()).toBeUndefined();
  });
});

describe('startTracing: batches', () => {
  it.each(['http/protobuf', 'http/json'])('exports batches of 512 spans by default, and what OTEL_BSP_* say when set (%s)', async (protocol) => {
    const sink = await startOtlpSink();
    try {
      vi.stubEnv('OTEL_EXPORTER_OTLP_ENDPOINT', sink.url);
      vi.stubEnv('OTEL_EXPORTER_OTLP_PROTOCOL', protocol);
      // A schedule far off: a batch leaves because it is full, or at shutdown.
      vi.stubEnv('OTEL_BSP_SCHEDULE_DELAY', '60000');
      for (const [batchSize, expected] of [
        [undefined, [512, 88]],
        ['250', [250, 250, 100]],
      ] as const) {
        if (batchSize !== undefined) vi.stubEnv('OTEL_BSP_MAX_EXPORT_BATCH_SIZE', batchSize);
        sink.batchSizes.length = 0;
        const tracing = await startTracing('0.0.0-test', silentLogger);
        const tracer = trace.getTracer('test');
        for (let index = 0; index < 600; index++) tracer.startSpan('request', {}, ROOT_CONTEXT).end();
        expect(await tracing.shutdown(10_000)).toBe(true);
        // Largest first: the last batch, sent at shutdown, may overtake a full one on another connection.
        expect([...sink.batchSizes].sort((a, b) => b - a)).toEqual(expected);
      }
      expect([...sink.encodings]).toEqual([protocol === 'http/json' ? 'json' : 'protobuf']);
    } finally {
      await sink.close();
    }
  });
});

describe('startTracing: propagators', () => {
  it('registers the ones OTEL_PROPAGATORS names (W3C trace context and baggage by default), none for none', async () => {
    // Sampling nothing: no span is exported, so no collector is needed.
    vi.stubEnv('OTEL_TRACES_SAMPLER', 'always_off');
    for (const [propagators, fields] of [
      [undefined, ['traceparent', 'tracestate', 'baggage']],
      ['tracecontext', ['traceparent', 'tracestate']],
      ['none', []],
    ] as const) {
      if (propagators !== undefined) vi.stubEnv('OTEL_PROPAGATORS', propagators);
      const tracing = await startTracing('0.0.0-test', silentLogger);
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
      const { warnings, logger } = warningsLogger();
      vi.stubEnv('OTEL_EXPORTER_OTLP_ENDPOINT', `http://127.0.0.1:${(collector.address() as AddressInfo).port}`);
      const tracing = await startTracing('0.0.0-test', logger);
      trace.getTracer('test').startSpan('request', {}, ROOT_CONTEXT).end();
      expect(await tracing.shutdown(5_000)).toBe(true);
      expect(warnings).toContain('tracing: an export of spans failed; they are dropped');
    } finally {
      await new Promise((resolve) => collector.close(resolve));
    }
  });

  it('logs a variable that does not parse, and a resource detector it does not know, as warnings, from the start', async () => {
    const { warnings, logger } = warningsLogger();
    vi.stubEnv('OTEL_EXPORTER_OTLP_ENDPOINT', 'http://127.0.0.1:9');
    vi.stubEnv('OTEL_BSP_MAX_QUEUE_SIZE', 'lots');
    vi.stubEnv('OTEL_NODE_RESOURCE_DETECTORS', 'env,cloud');
    const tracing = await startTracing('0.0.0-test', logger);
    expect(await tracing.shutdown(500)).toBe(true);
    expect(warnings).toContain("tracing: Unknown value 'lots' for OTEL_BSP_MAX_QUEUE_SIZE, expected a number, using defaults");
    expect(warnings).toContain('tracing: Invalid resource detector "cloud" specified in the environment variable OTEL_NODE_RESOURCE_DETECTORS');
  });

  it('follows OTEL_LOG_LEVEL: at error, warnings of the SDK are not logged', async () => {
    const { warnings, logger } = warningsLogger();
    vi.stubEnv('OTEL_EXPORTER_OTLP_ENDPOINT', 'http://127.0.0.1:9');
    vi.stubEnv('OTEL_BSP_MAX_QUEUE_SIZE', 'lots');
    vi.stubEnv('OTEL_LOG_LEVEL', 'error');
    const tracing = await startTracing('0.0.0-test', logger);
    expect(await tracing.shutdown(500)).toBe(true);
    expect(warnings).toEqual([]);
  });
});
