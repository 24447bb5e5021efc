import { sql, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import { MIGRATIONS } from './migrations.js';

/** Where the store notes each migration a host's own Migrator applied, next to its tables: `migrate: false` checks it at start. */
export const APPLIED_TABLE = 'plant_store_migrations';

export interface PostgresMigrationsOptions {
  /** The schema of the store's tables, as given to `postgresStorage`; created when missing. @default 'public' */
  readonly schema?: string;
}

/**
 * The store's migrations for the host's own kysely `Migrator` (then open the storage with `migrate: false`). Each one
 * runs in `schema` whatever the host's `search_path` (set for the migration, then put back), and notes itself in
 * `<schema>.plant_store_migrations`, where the storage looks at start. Named `plant-store-<schema>-<version>`, so they
 * sort and never clash with the host's own.
 */
export function postgresMigrations(options: PostgresMigrationsOptions = {}): MigrationProvider {
  const schema = options.schema ?? 'public';
  return {
    getMigrations: async () =>
      Object.fromEntries(Object.entries(MIGRATIONS).map(([name, migration]) => [`plant-store-${schema}-${name}`, inSchema(schema, name, migration)])),
  };
}

/** The migration in `schema`, noted there once applied. */
function inSchema(schema: string, name: string, migration: Migration): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await sql`CREATE SCHEMA IF NOT EXISTS ${sql.id(schema)}`.execute(db);
      const { rows } = await sql<{ path: string }>`SELECT current_setting('search_path') AS path`.execute(db);
      // The schema builder qualifies table names itself; raw SQL in a migration resolves them through the path.
      await sql`SELECT set_config('search_path', ${sql.lit(quoted(schema))}, false)`.execute(db);
      await migration.up(db.withSchema(schema));
      await sql`CREATE TABLE IF NOT EXISTS ${sql.table(`${schema}.${APPLIED_TABLE}`)} (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`.execute(
        db,
      );
      await sql`INSERT INTO ${sql.table(`${schema}.${APPLIED_TABLE}`)} (name) VALUES (${sql.lit(name)}) ON CONFLICT DO NOTHING`.execute(db);
      // Put back as it was (a rollback puts it back too); printed SQL has no row here and keeps the schema's path.
      if (rows[0]) await sql`SELECT set_config('search_path', ${sql.lit(rows[0].path)}, false)`.execute(db);
    },
  };
}

const quoted = (identifier: string) => `"${identifier.replaceAll('"', '""')}"`;
