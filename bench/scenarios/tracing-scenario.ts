import { startOtlpSink } from '../../test/support/otlp-sink.js';
import type { BenchContext } from '../lib/bench-context.js';
import { tracingSamplerEnv } from '../lib/bench-options.js';
import type { PairedResult } from '../lib/paired-rounds.js';
import { runOnOffScenario } from './on-off-scenario.js';

/**
 * The cost of tracing: create and list 20, per storage, the service
 * exporting its spans to a local OTLP sink (the standard variables, the
 * SDK's default batching; every request recorded unless `--tracing-sampler`
 * names a sampler) against the same service with no `OTEL_*` variable,
 * which loads no SDK. A group that fails is reported through `onError` and
 * the others still run; without a sampler, a group in which the sink
 * received no span fails, as it would measure nothing.
 */
export async function runTracingScenario(context: BenchContext, onError: (name: string, error: unknown) => void): Promise<PairedResult[]> {
  const sink = await startOtlpSink({ keep: false });
  const sampler = context.options.tracingSampler;
  const samplerEnv = sampler === undefined ? {} : tracingSamplerEnv(sampler);
  const sampled = sampler === undefined ? '' : ` (${Object.entries(samplerEnv).map(([name, value]) => `${name}=${value}`).join(' ')})`;
  try {
    return await runOnOffScenario(
      context,
      {
        name: 'tracing',
        comparison: `the service exporting its spans to a local OTLP sink${sampled} against itself without tracing`,
        settings: (state) => (state === 'on' ? { env: { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, OTEL_SERVICE_NAME: 'plant-store-bench', ...samplerEnv } } : {}),
        // Counted over the whole group: a service exports what it still buffers when it stops.
        async group(run) {
          const before = sink.received();
          const result = await run();
          // With a sampler that keeps nothing, no span is expected; without one, none means tracing never started.
          if (sink.received() === before && sampler === undefined) throw new Error('the OTLP sink received no span: tracing was not on');
          context.log(`  ${sink.received() - before} spans exported`);
          return result;
        },
      },
      onError,
    );
  } finally {
    await sink.close();
  }
}
