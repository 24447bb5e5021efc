import { advisoryLockKey } from '../advisory-lock-key.js';
import { APPLIED_TABLE } from './migration-provider.js';
import { Kysely, Migrator, PostgresDialect, sql, type DatabaseIntrospector, type Migration, type TableMetadata } from 'kysely';
import pg from 'pg';

/**
 * Brings `schema` (created when missing) to the latest version, holding an advisory lock keyed by the schema so
 * instances starting together migrate once (`CREATE SCHEMA IF NOT EXISTS` itself races, before kysely's own lock).
 */
export async function migrate(config: pg.ClientConfig, schema: string, migrations: Readonly<Record<string, Migration>>): Promise<void> {
  const pool = new pg.Pool({ ...config, max: 1 });
  pool.on('error', () => {}); // the migration's own query rejects; see createPool
  const db = new Kysely<unknown>({ dialect: new OneSchemaDialect({ pool }, schema) });
  try {
    await db.connection().execute(async (connection) => {
      await sql`SELECT pg_advisory_lock(${advisoryLockKey(`plant-store migrations of schema ${schema}`)})`.execute(connection);
      await sql`CREATE SCHEMA IF NOT EXISTS ${sql.id(schema)}`.execute(connection);
      // The schema builder qualifies table names itself; raw SQL in a migration resolves them through the path.
      await sql`SET search_path TO ${sql.id(schema)}`.execute(connection);
      const migrator = new Migrator({
        db: connection.withSchema(schema),
        provider: { getMigrations: async () => ({ ...migrations }) },
        migrationTableSchema: schema,
      });
      const { error } = await migrator.migrateToLatest();
      if (error) throw error;
    });
  } finally {
    await db.destroy();
  }
}

/** How an operator or host brings a schema up to date, for the messages of `checkMigrated`. */
const HOW_TO_MIGRATE =
  "migrate it: open the storage once with migrate: true (plant-store serve does), run postgresMigrations() in your kysely Migrator, or apply the SQL of 'plant-store migrations sql --storage postgres'";

/**
 * Throws unless `schema` exists and holds exactly `migrations`, as the storage's own migrator records them
 * (`kysely_migration`) or a host's Migrator noted them (`plant_store_migrations`); changes nothing.
 */
export async function checkMigrated(config: pg.ClientConfig, schema: string, migrations: Readonly<Record<string, Migration>>): Promise<void> {
  const client = new pg.Client(config);
  client.on('error', () => {}); // the query below rejects instead
  await client.connect();
  try {
    const applied = new Set<string>();
    for (const table of ['kysely_migration', APPLIED_TABLE]) {
      const qualified = `${client.escapeIdentifier(schema)}.${client.escapeIdentifier(table)}`;
      const { rows } = await client.query<{ name: string }>(`SELECT name FROM ${qualified}`).catch((error: { code?: string }) => {
        // 3F000: no such schema; 42P01: no such table.
        if (error.code === '3F000' || error.code === '42P01') return { rows: [] };
        throw error;
      });
      for (const { name } of rows) applied.add(name);
    }
    const expected = Object.keys(migrations).sort();
    if (applied.size === 0) throw new Error(`schema ${schema} does not exist or holds no Plant Store tables: ${HOW_TO_MIGRATE}`);
    const unknown = [...applied].filter((name) => !(name in migrations)).sort();
    if (unknown.length > 0) throw new Error(`schema ${schema} was migrated by a newer plant-store (${unknown.at(-1)}): upgrade plant-store`);
    const missing = expected.filter((name) => !applied.has(name));
    if (missing.length > 0) {
      const at = expected.filter((name) => applied.has(name)).at(-1) ?? 'none';
      throw new Error(`schema ${schema} is at version ${at}, this plant-store expects ${expected.at(-1)}: ${HOW_TO_MIGRATE}`);
    }
  } finally {
    await client.end();
  }
}

/** Introspects one schema only: kysely's stock introspector fails when another session drops any schema meanwhile. */
class OneSchemaDialect extends PostgresDialect {
  readonly #schema: string;

  constructor(config: ConstructorParameters<typeof PostgresDialect>[0], schema: string) {
    super(config);
    this.#schema = schema;
  }

  override createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    const schema = this.#schema;
    const getTables = async (): Promise<TableMetadata[]> => {
      const { rows } = await sql<{ name: string }>`
        SELECT c.relname AS name FROM pg_catalog.pg_class c
        JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = ${schema} AND c.relkind IN ('r', 'p', 'v')`.execute(db);
      return rows.map(({ name }) => ({ name, schema, isView: false, columns: [] }));
    };
    return {
      getSchemas: async () => [{ name: schema }],
      getTables,
      getMetadata: async () => ({ tables: await getTables() }),
    };
  }
}
