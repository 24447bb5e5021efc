import pg from 'pg';
import type { BenchContext } from '../lib/bench-context.js';
import type { BenchPostgres } from '../lib/bench-postgres.js';
import type { PairedResult } from '../lib/paired-rounds.js';
import { BENCH_TOKENS } from './http-scenarios.js';
import { runCreate, runReads, type PairHome, type PairedReadName } from './http-suite.js';

/**
 * Each server of a pair in a schema of its own on the bench database,
 * migrated by the storage adapter before it starts and dropped when the
 * pair has stopped; `logging` picks `--log-level info` (one line per
 * request) or `warn` (none), for both contestants alike.
 */
export function postgresHome(postgres: BenchPostgres, logging: boolean): PairHome {
  const schemas = new Map<string, string[]>();
  const variant = logging ? 'log' : 'nolog';
  return {
    label: `postgres, logging ${logging ? 'on' : 'off'}`,
    async config(name, who) {
      const schema = await postgres.createSchema(`${name}_${variant}_${who}`);
      schemas.set(name, [...(schemas.get(name) ?? []), schema]);
      return {
        storage: 'postgres',
        postgres: { databaseUrl: postgres.databaseUrl, schema, pool: postgres.pool },
        logging,
        tokens: BENCH_TOKENS,
      };
    },
    // Freshly inserted rows make their first readers set hint bits, and
    // autovacuum would vacuum and analyze them at a moment of its choosing,
    // during whichever contestant's round: do both now, for both schemas.
    async settle(name) {
      for (const schema of schemas.get(name) ?? []) await postgres.query(`VACUUM (ANALYZE) ${pg.escapeIdentifier(schema)}.plants`);
    },
    async release(name) {
      for (const schema of schemas.get(name) ?? []) await postgres.dropSchema(schema);
      schemas.delete(name);
    },
  };
}

/**
 * pg-create, pg-list-20 and pg-list-100: the service on PostgreSQL against
 * the raw node:http + pg baseline (same schema, statements and pool size),
 * logging off, then on. Results are named like the other storages'
 * (`create`, `list-20`, `list-100`), so they share their tables and targets.
 */
export async function runPostgresHttpSuite(
  context: BenchContext,
  postgres: BenchPostgres,
  onError: (name: string, error: unknown) => void,
): Promise<PairedResult[]> {
  const selected = context.options.scenarios;
  const results: PairedResult[] = [];
  const reads = (['list-20', 'list-100'] as const satisfies readonly PairedReadName[]).filter((name) => selected.has(`pg-${name}`));
  for (const logging of [false, true]) {
    const home = postgresHome(postgres, logging);
    const group = async (name: string, run: () => Promise<PairedResult[]>) => {
      context.log(`${name} (${home.label})`);
      try {
        results.push(...(await run()));
      } catch (error) {
        onError(`${name} (${home.label})`, error);
      }
    };
    if (selected.has('pg-create')) await group('pg-create', async () => [await runCreate(context, home, 'hold')]);
    if (reads.length) await group(reads.map((name) => `pg-${name}`).join(', '), () => runReads(context, home, reads));
  }
  return results;
}
