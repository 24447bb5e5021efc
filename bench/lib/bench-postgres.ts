import type pg from 'pg';
import { postgresStorage } from '@plant-store/storage-postgres';
import { connectClient, DEFAULT_DATABASE_URL, dropSchemasStatement } from '../../test/support/postgres-database.js';

export type BenchPostgres = Extract<Awaited<ReturnType<typeof openBenchPostgres>>, { postgres: unknown }>['postgres'];

/** Connects to `PLANT_STORE_BENCH_DATABASE_URL`; `{ unreachable }` with the reason, so the runner can skip the PostgreSQL scenarios. */
export async function openBenchPostgres(pool: number) {
  const databaseUrl = process.env.PLANT_STORE_BENCH_DATABASE_URL ?? DEFAULT_DATABASE_URL;
  const connected = await connectClient(databaseUrl, 'plant-store-bench');
  if ('unreachable' in connected) return connected;
  const { client } = connected;
  const created = new Set<string>();
  const postgres = {
    databaseUrl,
    /** Pool size of every server (`--db-pool`). */
    pool,
    /** A new schema `bench_<pid>_<name>`, migrated by the storage adapter, so service and baseline get the same tables and indexes. */
    async createSchema(name: string) {
      const schema = `bench_${process.pid}_${name}`.toLowerCase().replace(/[^a-z0-9_]/g, '_');
      created.add(schema);
      await client.query(dropSchemasStatement([schema]));
      await (await postgresStorage({ connectionString: databaseUrl, schema, poolSize: 1 })).close();
      return schema;
    },
    /** The storage settings of a server on `schema`. */
    serverConfig: (schema: string) => ({ storage: 'postgres' as const, postgres: { databaseUrl, schema, pool } }),
    /** One statement on the bench database (seeding, checks). */
    async query<Row extends pg.QueryResultRow>(text: string, parameters: readonly unknown[] = []): Promise<Row[]> {
      return (await client.query<Row>(text, [...parameters])).rows;
    },
    async dropSchema(schema: string) {
      await client.query(dropSchemasStatement([schema]));
      created.delete(schema);
    },
    /** Drops every schema this run created and closes the connection. */
    async dropAll() {
      try {
        for (const schema of created) await postgres.dropSchema(schema);
      } finally {
        await client.end();
      }
    },
  };
  return { postgres };
}
