import { join } from 'node:path';
import { startOtlpSink } from '../../test/support/otlp-sink.js';
import { startReceiver } from '../../test/support/webhook-receiver.js';
import type { BenchContext } from '../lib/bench-context.js';
import { describeSampler, tracingSamplerEnv } from '../lib/bench-options.js';
import { runPairedRounds, type PairedResult, type PairedScenario } from '../lib/paired-rounds.js';
import type { ServerConfig } from '../lib/server-launcher.js';
import type { BenchResults } from '../lib/targets.js';
import { startServer, type RunningServer } from '../lib/server-process.js';
import type { StorageKind } from '../../test/support/storage-kind.js';
import { BENCH_TOKENS, createScenario, listScenario, seedReadServer } from './http-scenarios.js';

/**
 * The cost of tracing: create and list 20, per storage, the service
 * exporting its spans to a local OTLP sink (the standard variables, every
 * request recorded unless `--tracing-sampler` names a sampler) as the
 * `service` of the pair, against the same service without any `OTEL_*`
 * variable as its `baseline`. A group that fails is reported through
 * `onError` and the others still run; without a sampler, a group in which
 * the sink received no span fails, as it would measure nothing.
 */
export async function runTracingScenario(
  context: BenchContext,
  onError: (name: string, error: unknown) => void,
): Promise<NonNullable<BenchResults['tracing']>> {
  const sink = await startOtlpSink({ keep: false });
  const sampler = context.options.tracingSampler;
  const samplerEnv = sampler === undefined ? {} : tracingSamplerEnv(sampler);
  const sampled = sampler === undefined ? '' : ` (sampled with ${describeSampler(sampler)})`;
  const comparison = `the service exporting its spans to a local OTLP sink${sampled} against itself without tracing`;
  const seeded = context.options.seedPlants;

  async function group(storage: StorageKind, name: string, scenario: PairedScenario): Promise<PairedResult> {
    // Create as in `create`: one subscription whose receiver holds requests, so both write the outbox row and neither delivers.
    const receiver = name === 'tracing-create' ? await startReceiver() : undefined;
    receiver?.reply(() => 'hang');
    const config = (state: 'on' | 'off'): ServerConfig => ({
      storage,
      dbFile: join(context.workDir, `${name}-${storage}-${state}.db`),
      tokens: BENCH_TOKENS,
      ...(receiver ? { webhooks: [{ url: receiver.url(), secret: receiver.secret }], webhookTimeout: '1h' } : {}),
      ...(state === 'on' ? { env: { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, OTEL_SERVICE_NAME: 'plant-store-bench', ...samplerEnv } } : {}),
      ...context.profile(`${name}-${storage}-${state}`),
    });
    const before = sink.received();
    const servers: RunningServer[] = [];
    let result: PairedResult;
    try {
      for (const state of ['on', 'off'] as const) servers.push(await startServer(context.launcher.spec('service', config(state))));
      const [on, off] = servers as [RunningServer, RunningServer];
      if (!receiver) for (const server of servers) await seedReadServer(server, seeded, 0, 0);
      result = await runPairedRounds(scenario, storage, { service: on, baseline: off }, context.options, context.log);
    } finally {
      // Receiver first: its held requests then fail at once instead of making the services' shutdown wait for them.
      await receiver?.close();
      await Promise.all(servers.map((server) => server.stop()));
    }
    // Counted after the stop: a service exports what it still buffers when it stops.
    if (sink.received() === before && sampler === undefined) throw new Error('the OTLP sink received no span: tracing was not on');
    context.log(`  ${sink.received() - before} spans exported`);
    return result;
  }

  const results: PairedResult[] = [];
  try {
    for (const storage of context.options.storages) {
      for (const [name, scenario] of [
        ['tracing-create', createScenario('tracing-create', `POST /plants as in \`create\`; ${comparison}`)],
        ['tracing-list-20', { ...listScenario(20, seeded), name: 'tracing-list-20', description: `GET /plants?limit=20 as in \`list-20\`; ${comparison}` }],
      ] as const) {
        context.log(`${name} (${storage})`);
        try {
          results.push(await group(storage, name, scenario));
        } catch (error) {
          onError(`${name} (${storage})`, error);
        }
      }
    }
  } finally {
    await sink.close();
  }
  return { sampled: sampler !== undefined, pairs: results };
}
