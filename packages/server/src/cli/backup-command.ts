import { loadConfig } from '../config/load-config.js';
import { SETTINGS, settingName } from '../config/settings.js';
import type { CliIo } from './cli-io.js';
import { UsageError, parseStrict, usageMistake } from './command-args.js';
import { errorLine } from './error-line.js';

export const backupUsage = `Usage: plant-store backup <file> [--db FILE] [--storage sqlite]

Writes a consistent copy of the service's SQLite database to <file> (a new
file) while the service keeps running: the copy holds every write committed
when the backup began. To restore: stop the service, replace its database
file with the copy (removing the old file's -wal and -shm files), start it.

PostgreSQL is backed up with pg_dump --schema <schema>; memory storage keeps
nothing to back up.

Options (as for plant-store serve; a flag wins over its variable):
  --db FILE                ${SETTINGS.db.env} (default: ${SETTINGS.db.default})
  --storage sqlite         ${SETTINGS.storage.env} (default: ${SETTINGS.storage.default})
  -h, --help               show this help
`;

/** `plant-store backup <file>`: an online copy of the SQLite database `serve` would open. Exit status 0, 1 failed, 2 bad arguments. */
export async function runBackupCommand(args: readonly string[], env: NodeJS.ProcessEnv, io: CliIo): Promise<number> {
  let target: string;
  let db: string;
  try {
    const parsed = parse(args);
    if (parsed.help) {
      io.stdout.write(backupUsage);
      return 0;
    }
    target = parsed.target;
    db = sqlitePath(parsed.storage, parsed.db, env);
  } catch (error) {
    return usageMistake(error, 'backup', io);
  }
  try {
    // Loaded only now, so --help and mistakes load no native driver.
    const { backupSqliteDatabase } = await import('@plant-store/storage-sqlite');
    const { bytes } = await backupSqliteDatabase({ path: db, to: target });
    io.stdout.write(`backed up ${db} to ${target} (${bytes} bytes)\n`);
    return 0;
  } catch (error) {
    io.stderr.write(errorLine(error));
    return 1;
  }
}

function parse(args: readonly string[]): { help: boolean; target: string; db?: string; storage?: string } {
  const { values, positionals } = parseStrict<{ db?: string; storage?: string; help?: boolean }>(
    args,
    { db: { type: 'string' }, storage: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    true,
  );
  if (values.help) return { help: true, target: '' };
  if (positionals.length === 0 || positionals[0] === '') throw new UsageError('backup needs the file to write: plant-store backup <file>');
  if (positionals.length > 1) throw new UsageError(`unexpected argument '${positionals[1]}'`);
  return { help: false, target: positionals[0]!, db: values.db, storage: values.storage };
}

/** The SQLite file `serve` would open; other storages are refused with what to use instead. */
function sqlitePath(storageFlag: string | undefined, dbFlag: string | undefined, env: NodeJS.ProcessEnv): string {
  const storageEnv = env[SETTINGS.storage.env]?.trim() ? env[SETTINGS.storage.env] : undefined;
  const storage = (storageFlag ?? storageEnv ?? SETTINGS.storage.default).trim().toLowerCase();
  if (storage === 'postgres') {
    throw new UsageError(
      `backup copies a SQLite database, and ${settingName('storage')} is postgres: back up PostgreSQL with pg_dump --schema <schema> (pg_restore to restore)`,
    );
  }
  if (storage === 'memory') throw new UsageError(`${settingName('storage')} is memory: it keeps nothing on disk to back up`);
  // Everything else (sqlite, or a typo the loader names) as serve reads it.
  const dbEnv = env[SETTINGS.db.env];
  const values = { storage, ...(dbFlag === undefined ? {} : { db: dbFlag }) };
  return loadConfig({ help: false, values }, dbEnv === undefined ? {} : { [SETTINGS.db.env]: dbEnv }).db;
}
