import type pg from 'pg';
import { postgresStorage } from '@plant-store/storage-postgres';
import { connectClient, DEFAULT_DATABASE_URL, dropSchemasStatement } from '../../test/support/postgres-database.js';

/** Schemas of one run on the bench database: created migrated, dropped at the end. */
export interface BenchPostgres {
  readonly databaseUrl: string;
  /** Pool size of every server (`--db-pool`). */
  readonly pool: number;
  /** A new schema `bench_<pid>_<name>`, migrated by the storage adapter, so service and baseline get the same tables and indexes. */
  createSchema(name: string): Promise<string>;
  /** Runs one statement on the bench database (seeding, checks). */
  query<Row extends pg.QueryResultRow>(text: string, parameters?: readonly unknown[]): Promise<Row[]>;
  dropSchema(schema: string): Promise<void>;
  /** Drops every schema this run created and closes the connection. */
  dropAll(): Promise<void>;
}

/** Connects to `PLANT_STORE_BENCH_DATABASE_URL`; `{ unreachable }` with the reason, so the runner can skip the PostgreSQL scenarios. */
export async function openBenchPostgres(pool: number): Promise<{ postgres: BenchPostgres } | { unreachable: string }> {
  const databaseUrl = process.env.PLANT_STORE_BENCH_DATABASE_URL ?? DEFAULT_DATABASE_URL;
  const connected = await connectClient(databaseUrl, 'plant-store-bench');
  if ('unreachable' in connected) return connected;
  const { client } = connected;
  const created = new Set<string>();
  const postgres: BenchPostgres = {
    databaseUrl,
    pool,
    async createSchema(name) {
      const schema = `bench_${process.pid}_${name}`.toLowerCase().replace(/[^a-z0-9_]/g, '_');
      created.add(schema);
      await client.query(dropSchemasStatement([schema]));
      await (await postgresStorage({ connectionString: databaseUrl, schema, poolSize: 1 })).close();
      return schema;
    },
    async query(text, parameters = []) {
      return (await client.query(text, [...parameters])).rows;
    },
    async dropSchema(schema) {
      await client.query(dropSchemasStatement([schema]));
      created.delete(schema);
    },
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
