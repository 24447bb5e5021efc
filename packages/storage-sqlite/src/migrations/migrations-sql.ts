import { DummyDriver, Kysely, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler, type CompiledQuery } from 'kysely';
import { sqliteMigrations } from './migration-provider.js';

/**
 * Every migration of the store as SQL, for a host that applies schema changes with its own tools: what
 * `sqliteMigrations()` runs on a new database (it notes each one, so `migrate: false` accepts the result), in one
 * transaction. Compiled, never run: no database is needed.
 */
export async function sqliteMigrationsSql(): Promise<string> {
  const statements: string[] = [];
  const db = new Kysely<unknown>({
    dialect: {
      createAdapter: () => new SqliteAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (kysely) => new SqliteIntrospector(kysely),
      createQueryCompiler: () => new SqliteQueryCompiler(),
    },
    log: (event) => {
      if (event.level === 'query') statements.push(inlined(event.query));
    },
  });
  const migrations = await sqliteMigrations().getMigrations();
  const parts: string[] = [];
  for (const [name, migration] of Object.entries(migrations).sort(([a], [b]) => a.localeCompare(b))) {
    statements.length = 0;
    await migration.up(db);
    // Reads of existing rows (a data migration's) find none on a new database: left out.
    parts.push(`-- ${name}\n${statements.filter((text) => !/^\s*select\b/i.test(text)).join(';\n')};`);
  }
  await db.destroy();
  return `BEGIN IMMEDIATE;\n\n${parts.join('\n\n')}\n\nCOMMIT;\n`;
}

/** The statement with its parameters written in (the migrations bind few, all plain values). */
function inlined(query: CompiledQuery): string {
  let index = 0;
  return query.sql.replace(/\?/g, () => literal(query.parameters[index++]));
}

function literal(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (typeof value === 'boolean') return value ? '1' : '0';
  return `'${String(value).replaceAll("'", "''")}'`;
}
