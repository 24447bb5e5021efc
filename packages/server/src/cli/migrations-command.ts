import { readFileSync } from 'node:fs';
import { settingReader } from '../config/setting-reader.js';
import { SETTINGS, settingName } from '../config/settings.js';
import type { CliIo } from './cli-io.js';
import { UsageError, nonEmpty, parseStrict, usageMistake } from './command-args.js';
import { errorLine } from './error-line.js';

export const migrationsUsage = `Usage: plant-store migrations sql [--storage postgres|sqlite] [--db-schema NAME]

Prints the SQL of every Plant Store migration, for an app that applies schema
changes with its own tools (a migration file, a review): one transaction that
creates the tables (on PostgreSQL in the schema, created when missing) and
notes each migration in plant_store_migrations, so a storage opened with
migrate: false accepts the result. Connects to nothing.

Options:
  --storage postgres|sqlite  ${SETTINGS.storage.env} (default: ${SETTINGS.storage.default})
  --db-schema NAME           ${SETTINGS.dbSchema.env}: the PostgreSQL schema (default: ${SETTINGS.dbSchema.default})
  -h, --help                 show this help
`;

/** `plant-store migrations sql`: the migrations as SQL on stdout. Exit status 0, 1 failed, 2 bad arguments. */
export async function runMigrationsCommand(args: readonly string[], env: NodeJS.ProcessEnv, io: CliIo): Promise<number> {
  let storage: 'postgres' | 'sqlite';
  let schema: string;
  try {
    const { values, positionals } = parseStrict<{ storage?: string; 'db-schema'?: string; help?: boolean }>(
      args,
      { storage: { type: 'string' }, 'db-schema': { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      true,
    );
    if (values.help || positionals.length === 0) {
      (values.help ? io.stdout : io.stderr).write(migrationsUsage);
      return values.help ? 0 : 2;
    }
    if (positionals[0] !== 'sql') throw new UsageError(`unknown migrations command '${positionals[0]}'`);
    if (positionals.length > 1) throw new UsageError(`unexpected argument '${positionals[1]}'`);
    // Read as serve reads them (an empty variable is unset, the schema must be a name serve accepts), so the SQL fits the service.
    const flags = { storage: nonEmpty(values.storage, 'storage'), dbSchema: nonEmpty(values['db-schema'], 'db-schema') };
    const read = settingReader(flags, env, (path) => readFileSync(path, 'utf8'));
    storage = storageOf(read.text('storage'));
    if (storage === 'sqlite' && values['db-schema'] !== undefined) throw new UsageError('--db-schema is for --storage postgres');
    schema = read.identifier('dbSchema');
  } catch (error) {
    return usageMistake(error, 'migrations', io);
  }
  try {
    // Loaded only now, so --help and mistakes load no driver.
    const sql =
      storage === 'postgres'
        ? await (await import('@plant-store/storage-postgres')).postgresMigrationsSql({ schema })
        : await (await import('@plant-store/storage-sqlite')).sqliteMigrationsSql();
    io.stdout.write(sql);
    return 0;
  } catch (error) {
    io.stderr.write(errorLine(error));
    return 1;
  }
}

function storageOf(value: string): 'postgres' | 'sqlite' {
  const storage = value.trim().toLowerCase();
  if (storage === 'postgres' || storage === 'sqlite') return storage;
  throw new UsageError(`${settingName('storage')} must be postgres or sqlite for migrations (memory storage has no schema), got '${value}'`);
}
