import { join } from 'node:path';
import { ALL_SCOPES, createPlantStore, type PlantStore, type Principal } from '@plant-store/core';
import { postgresStorage } from '@plant-store/storage-postgres';
import { sqliteStorage } from '@plant-store/storage-sqlite';
import type { BenchContext } from '../lib/bench-context.js';
import type { BenchPostgres } from '../lib/bench-postgres.js';
import { inProcessRate } from '../lib/in-process-rate.js';
import { median } from '../lib/stats.js';

const principal: Principal = { subject: 'bench', tenant: 'bench', scopes: [...ALL_SCOPES] };
/** Endpoints of the tenant: every create queues one delivery to each, filtered or not. */
const ENDPOINTS = 10;
/** The documented example: every plant of the scenario is tagged `indoor`, so it matches and both sides queue the same deliveries. */
const FILTER = { 'data.tag': { $in: ['indoor', 'rare'] } };
const SIDES = ['filtered', 'unfiltered'] as const;
type Side = (typeof SIDES)[number];

export type FilteredFanOutResult = Awaited<ReturnType<typeof runFilteredFanOutScenario>>;

/**
 * What endpoint filters cost the create path, in this process: two stores (SQLite files, or PostgreSQL schemas, of their
 * own), each with a tenant of {@link ENDPOINTS} endpoints, one with the filter on every endpoint and one without, so each
 * create fans out to all of them on both sides. Neither store sends (no transport): the deliveries queue. The two run in
 * turn in every round with the same concurrency.
 */
export async function runFilteredFanOutScenario(context: BenchContext, postgres?: BenchPostgres) {
  const { options } = context;
  const workers = options.connections;
  const schemas: string[] = [];
  const open = async (side: Side) => {
    if (!postgres) return sqliteStorage({ path: join(context.workDir, `filtered-fan-out-${side}.db`) });
    const schema = await postgres.createSchema(`filtered_fan_out_${side}`);
    schemas.push(schema);
    return postgresStorage({ connectionString: postgres.databaseUrl, schema, poolSize: postgres.pool });
  };
  const stores: Partial<Record<Side, PlantStore>> = {};
  try {
    for (const side of SIDES) {
      const store = createPlantStore({ storage: await open(side) });
      stores[side] = store;
      for (let index = 0; index < ENDPOINTS; index++) {
        const filter = side === 'filtered' ? { filter: FILTER } : {};
        await store.webhooks.endpoints.create(principal, { url: `https://receiver.example/hooks/${index}`, ...filter });
      }
    }
    let nextId = 1;
    const create = (store: PlantStore) => async () => {
      const id = nextId++;
      await store.plants.create(principal, { id, name: `Benchmark plant ${id}`, tag: 'indoor' });
    };
    const operations = { filtered: create(stores.filtered!), unfiltered: create(stores.unfiltered!) };
    const where = postgres ? 'pg-filtered-fan-out' : 'filtered-fan-out';
    const phase = async (label: string, seconds: number) => {
      const figures = {} as Record<Side, number>;
      for (const side of SIDES) figures[side] = await inProcessRate(workers, seconds, operations[side]);
      context.log(`  ${where} ${label}: ${SIDES.map((side) => `${side} ${figures[side].toFixed(0)}/s`).join(', ')}`);
      return figures;
    };
    await phase('warm-up', options.warmupS);
    const rounds: Record<Side, number>[] = [];
    for (let round = 1; round <= options.rounds; round++) rounds.push(await phase(`round ${round}`, options.roundS));
    return {
      storage: postgres ? ('PostgreSQL' as const) : ('SQLite' as const),
      workers,
      endpoints: ENDPOINTS,
      rounds,
      medians: Object.fromEntries(SIDES.map((side) => [side, median(rounds.map((round) => round[side]))])) as Record<Side, number>,
      /** Creates/s with a filter on every endpoint / without. */
      filteredVsUnfiltered: median(rounds.map((round) => round.filtered / round.unfiltered)),
    };
  } finally {
    await Promise.all(Object.values(stores).map((store) => store.close()));
    for (const schema of schemas) await postgres!.dropSchema(schema);
  }
}

/** The filtered fan-out figures; empty without a result. */
export function filteredFanOutSection(result: FilteredFanOutResult | undefined): string {
  if (!result) return '';
  const int = (value: number) => Math.round(value).toLocaleString('en-US');
  return `## ${result.storage}: endpoint filters on the create path

In the harness process, ${result.workers} concurrent loops; two stores of their own, each with ${result.endpoints} endpoints of one tenant: one with the filter \`${JSON.stringify(FILTER)}\` on every endpoint, one without. Every plant matches, so both queue ${result.endpoints} deliveries per create; nothing is sent. The two run in turn in every round (medians below).

| | creates per second |
| --- | --- |
| filter on every endpoint | ${int(result.medians.filtered)} |
| no filter | ${int(result.medians.unfiltered)} |

Filtered / unfiltered: **${result.filteredVsUnfiltered.toFixed(3)}x** (target ≥ 0.9x).`;
}
