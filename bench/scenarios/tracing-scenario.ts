import { join } from 'node:path';
import { startOtlpSink } from '../../test/support/otlp-sink.js';
import type { BenchContext } from '../lib/bench-context.js';
import { runPairedRounds, type PairedResult, type PairedScenario } from '../lib/paired-rounds.js';
import type { AnyStorageKind } from '../../test/support/storage-kind.js';
import type { ServerConfig } from '../lib/server-launcher.js';
import { startServer, type RunningServer } from '../lib/server-process.js';
import { startReceiver } from '../../test/support/webhook-receiver.js';
import { BENCH_TOKENS, createScenario, listScenario, seedReadServer } from './http-scenarios.js';

interface Pair {
  readonly service: RunningServer;
  readonly baseline: RunningServer;
}

/**
 * Two services, identical but for tracing: `service` exports every span to
 * the local OTLP sink (the standard variables, the SDK's default batching),
 * `baseline` has no `OTEL_*` variable and loads no SDK. Through
 * `runPairedRounds`, "service / baseline" reads "on / off".
 */
async function startOnOff(context: BenchContext, storage: AnyStorageKind, name: string, sinkUrl: string, extra: Partial<ServerConfig> = {}): Promise<Pair> {
  const config = (tracing: 'on' | 'off'): ServerConfig => ({
    storage,
    dbFile: join(context.workDir, `${name}-${storage}-tracing-${tracing}.db`),
    tokens: BENCH_TOKENS,
    ...(tracing === 'on' ? { env: { OTEL_EXPORTER_OTLP_ENDPOINT: sinkUrl, OTEL_SERVICE_NAME: 'plant-store-bench' } } : {}),
    ...extra,
    ...context.profile(`${name}-${storage}-tracing-${tracing}`),
  });
  const service = await startServer(context.launcher.spec('service', config('on')));
  try {
    const baseline = await startServer(context.launcher.spec('service', config('off')));
    return { service, baseline };
  } catch (error) {
    await service.stop();
    throw error;
  }
}

async function runCreate(context: BenchContext, storage: AnyStorageKind, sinkUrl: string): Promise<PairedResult> {
  // As in `create`: one subscription whose receiver holds requests, so both write the outbox row (with its traceparent) and neither delivers.
  const receiver = await startReceiver();
  receiver.reply(() => 'hang');
  const pair = await startOnOff(context, storage, 'tracing-create', sinkUrl, {
    webhooks: [{ url: receiver.url(), secret: receiver.secret }],
    webhookTimeout: '1h',
  });
  const scenario = createScenario('tracing-create', 'POST /plants as in `create`; the service exporting its spans to a local OTLP sink against itself without tracing');
  try {
    return await runPairedRounds(scenario, storage, pair, context.options, context.log);
  } finally {
    await receiver.close();
    await Promise.all([pair.service.stop(), pair.baseline.stop()]);
  }
}

async function runList(context: BenchContext, storage: AnyStorageKind, sinkUrl: string): Promise<PairedResult> {
  const pair = await startOnOff(context, storage, 'tracing-list', sinkUrl);
  const seeded = context.options.seedPlants;
  const scenario: PairedScenario = {
    ...listScenario(20, seeded),
    name: 'tracing-list-20',
    description: 'GET /plants?limit=20 as in `list-20`; the service exporting its spans to a local OTLP sink against itself without tracing',
  };
  try {
    context.log(`  seeding ${seeded} plants into each ${storage} server`);
    for (const server of [pair.service, pair.baseline]) await seedReadServer(server, seeded, 0, 0);
    return await runPairedRounds(scenario, storage, pair, context.options, context.log);
  } finally {
    await Promise.all([pair.service.stop(), pair.baseline.stop()]);
  }
}

/**
 * The cost of tracing: create and list 20, the service with tracing on
 * against the same service with it off, per storage. A group that fails is
 * reported through `onError` and the others still run; a run in which the
 * sink received no span fails, as that would measure nothing.
 */
export async function runTracingScenario(context: BenchContext, onError: (name: string, error: unknown) => void): Promise<PairedResult[]> {
  const sink = await startOtlpSink({ keep: false });
  const results: PairedResult[] = [];
  try {
    for (const storage of context.options.storages) {
      for (const [name, run] of [
        ['tracing-create', runCreate],
        ['tracing-list-20', runList],
      ] as const) {
        context.log(`${name} (${storage})`);
        try {
          const before = sink.received();
          results.push(await run(context, storage, sink.url));
          if (sink.received() === before) throw new Error('the OTLP sink received no span: tracing was not on');
          context.log(`  ${sink.received() - before} spans exported`);
        } catch (error) {
          onError(`${name} (${storage})`, error);
        }
      }
    }
  } finally {
    await sink.close();
  }
  return results;
}
