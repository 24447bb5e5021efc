import { join } from 'node:path';
import type { BenchContext } from '../lib/bench-context.js';
import { runPairedRounds, type PairedResult, type PairedScenario } from '../lib/paired-rounds.js';
import { startServer, type RunningServer } from '../lib/server-process.js';
import { BENCH_TOKENS, createScenario, listScenario, seedReadServer } from './http-scenarios.js';

const COMPARISON =
  'through `createFetchHandler` on `@hono/node-server` against the node listener (`createPlantServer`), same store and storage in each process';

/**
 * The fetch handler's cost: create and list 20, per storage, the API
 * served by `createFetchHandler` behind `@hono/node-server` as the
 * `service` of the pair, against `createPlantServer` as its `baseline`,
 * each a store in a process of its own (bench/lib/front-server.ts), logging
 * off and no subscription. Report only: a host picks a front for its
 * framework, not for speed. A group that fails is reported through `onError`.
 */
export async function runFetchHandlerScenario(context: BenchContext, onError: (name: string, error: unknown) => void): Promise<PairedResult[]> {
  const { options } = context;
  // Both fronts load the packages the same way: built (dist) unless the run measures the sources.
  const conditions = options.serviceFrom === 'source' ? ['--conditions=source'] : [];
  const start = (front: 'fetch' | 'listener', storage: string, name: string) =>
    startServer({
      label: `${front} (${storage})`,
      env: { NODE_ENV: 'production' },
      ...(context.serverCpu === undefined ? {} : { cpu: context.serverCpu }),
      args: [
        ...(context.profile(`${name}-${storage}-${front}`).nodeFlags ?? []),
        ...conditions,
        '--import',
        'tsx',
        'bench/lib/front-server.ts',
        front,
        storage,
        join(context.workDir, `${name}-${storage}-${front}.db`),
        JSON.stringify(BENCH_TOKENS),
      ],
    });
  const results: PairedResult[] = [];
  for (const storage of options.storages) {
    for (const [name, scenario] of [
      ['fetch-handler-create', createScenario('fetch-handler-create', `POST /plants with unique ids, no subscription, ${COMPARISON}`)],
      [
        'fetch-handler-list-20',
        { ...listScenario(20, options.seedPlants), name: 'fetch-handler-list-20', description: `GET /plants?limit=20 as in \`list-20\`, ${COMPARISON}` },
      ],
    ] as const satisfies readonly (readonly [string, PairedScenario])[]) {
      context.log(`${name} (${storage})`);
      const servers: RunningServer[] = [];
      try {
        for (const front of ['fetch', 'listener'] as const) servers.push(await start(front, storage, name));
        const [fetch, listener] = servers as [RunningServer, RunningServer];
        if (name === 'fetch-handler-list-20') for (const server of servers) await seedReadServer(server, options.seedPlants, 0, 0);
        results.push(await runPairedRounds(scenario, storage, { service: fetch, baseline: listener }, options, context.log));
      } catch (error) {
        onError(`${name} (${storage})`, error);
      } finally {
        await Promise.all(servers.map((server) => server.stop()));
      }
    }
  }
  return results;
}
