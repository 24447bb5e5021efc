import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, type CompiledQuery } from 'kysely';
import { postgresMigrations } from './migration-provider.js';

/**
 * Every migration of the store as SQL, for a host that applies schema changes with its own tools: what
 * `postgresMigrations({ schema })` runs on a new database (it notes each one, so `migrate: false` accepts the result),
 * in one transaction. Compiled, never run: no connection is needed.
 */
export async function postgresMigrationsSql(options: { schema?: string } = {}): Promise<string> {
  const statements: string[] = [];
  const db = new Kysely<unknown>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (kysely) => new PostgresIntrospector(kysely),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
    log: (event) => {
      if (event.level === 'query') statements.push(inlined(event.query));
    },
  });
  const migrations = await postgresMigrations(options).getMigrations();
  const parts: string[] = [];
  for (const [name, migration] of Object.entries(migrations).sort(([a], [b]) => a.localeCompare(b))) {
    statements.length = 0;
    await migration.up(db);
    // The provider reads the host's search_path to put it back; a script keeps the schema's.
    parts.push(`-- ${name}\n${statements.filter((text) => !text.includes('current_setting')).join(';\n')};`);
  }
  await db.destroy();
  // The migrations set the session's search_path to the schema; the script puts the server's default back.
  return `BEGIN;\n\n${parts.join('\n\n')}\n\nCOMMIT;\nRESET search_path;\n`;
}

/** The statement with its parameters written in (the migrations bind few, all plain values). */
function inlined(query: CompiledQuery): string {
  return query.sql.replace(/\$(\d+)/g, (_, index: string) => literal(query.parameters[Number(index) - 1]));
}

function literal(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  return `'${String(value).replaceAll("'", "''")}'`;
}
