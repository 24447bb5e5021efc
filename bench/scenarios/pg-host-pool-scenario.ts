import { ALL_SCOPES, createPlantStore, type PlantStore, type Principal } from '@plant-store/core';
import { postgresStorage } from '@plant-store/storage-postgres';
import pg from 'pg';
import type { BenchContext } from '../lib/bench-context.js';
import type { BenchPostgres } from '../lib/bench-postgres.js';
import { inProcessRate } from '../lib/in-process-rate.js';
import { median } from '../lib/stats.js';

const principal: Principal = { subject: 'bench', tenant: 'bench', scopes: [...ALL_SCOPES] };
const SIDES = ['hostPool', 'ownPool', 'hostTxWithPlant', 'hostTxAlone'] as const;
type Side = (typeof SIDES)[number];

export type PgHostPoolResult = Awaited<ReturnType<typeof runPgHostPoolScenario>>;

/**
 * Embedding on PostgreSQL, in this process: creates through a store on the
 * host's own `pg.Pool` against a store opening its own pool (same size),
 * and a host transaction (`BEGIN`, the plant through `inTransaction`, one
 * host INSERT, `COMMIT`, `committed()`) against the same transaction
 * without the plant. The four run in turn in every round with the same
 * concurrency, each store on a schema of its own; the store's statements
 * on the host's client are counted by wrapping its `query`.
 */
export async function runPgHostPoolScenario(context: BenchContext, postgres: BenchPostgres) {
  const { options } = context;
  const workers = options.connections;
  const hostSchema = await postgres.createSchema('host_pool_host');
  const ownSchema = await postgres.createSchema('host_pool_own');
  const orders = `${pg.escapeIdentifier(hostSchema)}.host_orders`;
  await postgres.query(`CREATE TABLE ${orders} (id bigint PRIMARY KEY, plant_id bigint)`);
  const pool = new pg.Pool({ connectionString: postgres.databaseUrl, max: postgres.pool });
  const stores: PlantStore[] = [];
  try {
    const hostStore = createPlantStore({ storage: await postgresStorage({ pool, schema: hostSchema }) });
    stores.push(hostStore);
    const ownStore = createPlantStore({
      storage: await postgresStorage({ connectionString: postgres.databaseUrl, schema: ownSchema, poolSize: postgres.pool }),
    });
    stores.push(ownStore);
    let nextId = 1;
    let storeStatements = 0;
    let plantsInTransactions = 0;
    const create = (store: PlantStore) => async () => {
      const id = nextId++;
      await store.plants.create(principal, { id, name: `Benchmark plant ${id}`, tag: 'bench' });
    };
    const hostTransaction = (withPlant: boolean) => async () => {
      const id = nextId++;
      const client = await pool.connect();
      const query = client.query;
      let statements = 0;
      // Counts every statement on the host's client, the host's own and the store's alike (same wrapper on both sides).
      client.query = ((...args: unknown[]) => {
        statements++;
        return (query as (...args: unknown[]) => unknown).apply(client, args);
      }) as typeof client.query;
      try {
        await client.query('BEGIN');
        const tx = withPlant ? hostStore.inTransaction(client) : undefined;
        if (tx) {
          const before = statements;
          await tx.plants.create(principal, { id, name: `Benchmark plant ${id}`, tag: 'bench' });
          storeStatements += statements - before;
          plantsInTransactions++;
        }
        await client.query(`INSERT INTO ${orders} (id, plant_id) VALUES ($1, $2)`, [id, tx ? id : null]);
        await client.query('COMMIT');
        tx?.committed();
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      } finally {
        client.query = query;
        client.release();
      }
    };
    const operations: Record<Side, () => Promise<void>> = {
      hostPool: create(hostStore),
      ownPool: create(ownStore),
      hostTxWithPlant: hostTransaction(true),
      hostTxAlone: hostTransaction(false),
    };
    const phase = async (label: string, seconds: number) => {
      const figures = {} as Record<Side, number>;
      for (const side of SIDES) figures[side] = await inProcessRate(workers, seconds, operations[side]);
      context.log(`  pg-host-pool ${label}: ${SIDES.map((side) => `${side} ${figures[side].toFixed(0)}/s`).join(', ')}`);
      return figures;
    };
    await phase('warm-up', options.warmupS);
    const rounds: Record<Side, number>[] = [];
    for (let round = 1; round <= options.rounds; round++) rounds.push(await phase(`round ${round}`, options.roundS));
    const ratioOf = (a: Side, b: Side) => median(rounds.map((round) => round[a] / round[b]));
    return {
      workers,
      pool: postgres.pool,
      rounds,
      medians: Object.fromEntries(SIDES.map((side) => [side, median(rounds.map((round) => round[side]))])) as Record<Side, number>,
      /** Creates/s on the host's pool / on the store's own pool. */
      hostVsOwn: ratioOf('hostPool', 'ownPool'),
      /** Host transactions/s with the plant / without it. */
      withPlantVsAlone: ratioOf('hostTxWithPlant', 'hostTxAlone'),
      /** Statements the store ran on the host's client per plant created in a host transaction. */
      statementsPerPlant: storeStatements / plantsInTransactions,
    };
  } finally {
    await Promise.all(stores.map((store) => store.close()));
    await pool.end();
    await postgres.dropSchema(hostSchema);
    await postgres.dropSchema(ownSchema);
  }
}

/** The host-pool figures; empty without a result. */
export function pgHostPoolSection(result: PgHostPoolResult | undefined): string {
  if (!result) return '';
  const int = (value: number) => Math.round(value).toLocaleString('en-US');
  const rows = [
    ["creates, store on the host's `pg.Pool`", int(result.medians.hostPool)],
    ['creates, store on its own pool (`connectionString`)', int(result.medians.ownPool)],
    ['host transactions with a plant (`inTransaction`)', int(result.medians.hostTxWithPlant)],
    ['the same host transactions without the plant', int(result.medians.hostTxAlone)],
  ];
  return `## PostgreSQL: the host's pool and transactions

In the harness process, ${result.workers} concurrent loops, pools of ${result.pool} connections, each store on a schema of its own; the four run in turn in every round (medians below). A host transaction is \`BEGIN\`, the plant through \`store.inTransaction(client)\`, one INSERT into a host table, \`COMMIT\`, \`committed()\`.

| | per second |
| --- | --- |
${rows.map((row) => `| ${row.join(' | ')} |`).join('\n')}

Host pool / own pool: **${result.hostVsOwn.toFixed(3)}x** (target 0.95x–1.05x). Host transactions with the plant / without: ${result.withPlantVsAlone.toFixed(2)}x. Statements the store runs on the host's client per plant: **${result.statementsPerPlant.toFixed(2)}**.`;
}
