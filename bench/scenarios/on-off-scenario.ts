import { join } from 'node:path';
import type { BenchContext } from '../lib/bench-context.js';
import { runPairedRounds, type PairedResult, type PairedScenario } from '../lib/paired-rounds.js';
import type { AnyStorageKind } from '../../test/support/storage-kind.js';
import type { ServerConfig } from '../lib/server-launcher.js';
import { startServer, type RunningServer } from '../lib/server-process.js';
import { startReceiver } from '../../test/support/webhook-receiver.js';
import { BENCH_TOKENS, createScenario, listScenario, seedReadServer } from './http-scenarios.js';

/** Two services identical but for one feature: `service` has it on, `baseline` off, so "service / baseline" reads "on / off". */
export interface OnOffPair {
  readonly service: RunningServer;
  readonly baseline: RunningServer;
}

/** A feature whose cost is measured by running the service with it on against the same service with it off. */
export interface OnOffFeature {
  /** Names the scenarios (`<name>-create`, `<name>-list-20`) and their files. */
  readonly name: string;
  /** How the service is compared, after "POST /plants as in `create`; ". */
  readonly comparison: string;
  /** The service's settings with the feature on or off. */
  settings(state: 'on' | 'off'): Partial<ServerConfig>;
  /** Runs `rounds` (the paired rounds of one group), for a feature that watches the pair meanwhile. */
  measure?(rounds: () => Promise<PairedResult>, pair: OnOffPair): Promise<PairedResult>;
  /** Runs one whole group (its servers started and stopped), for a feature that checks what the group did. */
  group?(run: () => Promise<PairedResult>): Promise<PairedResult>;
}

function measure(feature: OnOffFeature, rounds: () => Promise<PairedResult>, pair: OnOffPair): Promise<PairedResult> {
  return feature.measure ? feature.measure(rounds, pair) : rounds();
}

/**
 * One server's settings in a group: the storage's, then the feature's in
 * that state, then the group's (`extra`), the later winning; node flags
 * from all three and the profile's kept, where a spread would keep only
 * the last source's (a feature's preload would lose to `--cpu-prof`).
 */
export function onOffServerConfig(
  base: Pick<ServerConfig, 'storage' | 'dbFile'>,
  settings: Partial<ServerConfig>,
  extra: Partial<ServerConfig>,
  profile: Pick<ServerConfig, 'nodeFlags'>,
): ServerConfig {
  return {
    ...base,
    tokens: BENCH_TOKENS,
    ...settings,
    ...extra,
    nodeFlags: [...(settings.nodeFlags ?? []), ...(extra.nodeFlags ?? []), ...(profile.nodeFlags ?? [])],
  };
}

async function startOnOff(context: BenchContext, storage: AnyStorageKind, group: string, feature: OnOffFeature, extra: Partial<ServerConfig> = {}): Promise<OnOffPair> {
  const config = (state: 'on' | 'off'): ServerConfig =>
    onOffServerConfig(
      { storage, dbFile: join(context.workDir, `${group}-${storage}-${feature.name}-${state}.db`) },
      feature.settings(state),
      extra,
      context.profile(`${group}-${storage}-${feature.name}-${state}`),
    );
  const service = await startServer(context.launcher.spec('service', config('on')));
  try {
    const baseline = await startServer(context.launcher.spec('service', config('off')));
    return { service, baseline };
  } catch (error) {
    await service.stop();
    throw error;
  }
}

async function runCreate(context: BenchContext, storage: AnyStorageKind, feature: OnOffFeature): Promise<PairedResult> {
  // As in `create`: one subscription whose receiver holds requests, so both write the outbox row and neither delivers.
  const receiver = await startReceiver();
  receiver.reply(() => 'hang');
  const group = `${feature.name}-create`;
  const pair = await startOnOff(context, storage, group, feature, {
    webhooks: [{ url: receiver.url(), secret: receiver.secret }],
    webhookTimeout: '1h',
  });
  const scenario = createScenario(group, `POST /plants as in \`create\`; ${feature.comparison}`);
  try {
    return await measure(feature, () => runPairedRounds(scenario, storage, pair, context.options, context.log), pair);
  } finally {
    await receiver.close();
    await Promise.all([pair.service.stop(), pair.baseline.stop()]);
  }
}

async function runList(context: BenchContext, storage: AnyStorageKind, feature: OnOffFeature): Promise<PairedResult> {
  const group = `${feature.name}-list`;
  const pair = await startOnOff(context, storage, group, feature);
  const seeded = context.options.seedPlants;
  const scenario: PairedScenario = {
    ...listScenario(20, seeded),
    name: `${feature.name}-list-20`,
    description: `GET /plants?limit=20 as in \`list-20\`; ${feature.comparison}`,
  };
  try {
    context.log(`  seeding ${seeded} plants into each ${storage} server`);
    for (const server of [pair.service, pair.baseline]) await seedReadServer(server, seeded, 0, 0);
    return await measure(feature, () => runPairedRounds(scenario, storage, pair, context.options, context.log), pair);
  } finally {
    await Promise.all([pair.service.stop(), pair.baseline.stop()]);
  }
}

/**
 * The cost of `feature`: create and list 20, the service with it on against
 * the same service with it off, per storage. A group that fails is reported
 * through `onError` and the others still run.
 */
export async function runOnOffScenario(context: BenchContext, feature: OnOffFeature, onError: (name: string, error: unknown) => void): Promise<PairedResult[]> {
  const results: PairedResult[] = [];
  for (const storage of context.options.storages) {
    for (const [name, run] of [
      [`${feature.name}-create`, runCreate],
      [`${feature.name}-list-20`, runList],
    ] as const) {
      context.log(`${name} (${storage})`);
      try {
        const group = () => run(context, storage, feature);
        results.push(await (feature.group ? feature.group(group) : group()));
      } catch (error) {
        onError(`${name} (${storage})`, error);
      }
    }
  }
  return results;
}
