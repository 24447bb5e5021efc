import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { ConfigurationError } from '@plant-store/core';
import type { Storage } from '@plant-store/core/adapter';
import { describeFsError } from '../config/describe-fs-error.js';
import type { ServeConfig } from '../config/load-config.js';
import { settingName } from '../config/settings.js';
import { errorText } from './error-text.js';

export type StorageSettings = Pick<ServeConfig, 'storage' | 'db' | 'databaseUrl' | 'dbPool' | 'dbSchema' | 'webhookParkedLimit'>;

// Each adapter is loaded only when chosen. Only `serve` migrates: operator commands pass
// `migrate: false`, so a mistyped PostgreSQL schema is refused instead of created empty.
export async function openStorage(config: StorageSettings, migrate = true): Promise<{ storage: Storage; description: string }> {
  if (config.storage === 'memory') {
    const { memoryStorage } = await import('@plant-store/storage-memory');
    return { storage: memoryStorage({ parkedLimit: config.webhookParkedLimit }), description: 'memory' };
  }
  if (config.storage === 'postgres') return openPostgres(config, migrate);
  const { sqliteStorage } = await import('@plant-store/storage-sqlite');
  const path = resolve(config.db);
  try {
    mkdirSync(dirname(path), { recursive: true });
  } catch (error) {
    throw new ConfigurationError(settingName('db'), `cannot create the folder of ${config.db}: ${describeFsError(error)}`);
  }
  try {
    return { storage: await sqliteStorage({ path, parkedLimit: config.webhookParkedLimit }), description: `sqlite ${config.db}` };
  } catch (error) {
    throw new ConfigurationError(settingName('db'), `cannot open ${config.db}: ${errorText(error)}`);
  }
}

/** PostgreSQL: unreachable or unusable at start is a configuration error (exit 2); the URL is shown without its password. */
async function openPostgres(config: StorageSettings, migrate: boolean): Promise<{ storage: Storage; description: string }> {
  const { postgresStorage } = await import('@plant-store/storage-postgres');
  const where = redactedUrl(config.databaseUrl!);
  try {
    const storage = await postgresStorage({
      connectionString: config.databaseUrl!,
      poolSize: config.dbPool,
      schema: config.dbSchema,
      migrate,
      parkedLimit: config.webhookParkedLimit,
    });
    return { storage, description: `postgres ${where}${config.dbSchema === 'public' ? '' : ` schema ${config.dbSchema}`}` };
  } catch (error) {
    const reason = driverReason(error);
    // A schema missing or at another version is the schema setting's to fix, not the URL's.
    const setting = reason.startsWith(`schema ${config.dbSchema} `) ? 'dbSchema' : 'databaseUrl';
    throw new ConfigurationError(settingName(setting), `cannot use the database at ${where}: ${reason}`);
  }
}

/** The driver's own reason (a missing database, an unknown role, a refused connection); pg's never name the password. */
function driverReason(error: unknown): string {
  let reason = error;
  while (reason instanceof Error && reason.cause !== undefined) reason = reason.cause;
  const code = (reason as { code?: string }).code;
  if (code === 'ECONNREFUSED') return `connection refused (${errorText(reason)}): is PostgreSQL running there?`;
  // The server's own errors read well without their SQLSTATE.
  if (reason instanceof Error && 'severity' in reason) return reason.message;
  return errorText(reason);
}

/** `postgres://user@host:5432/db`: what an operator needs to recognise the database, never the password. */
function redactedUrl(text: string): string {
  const url = new URL(text);
  url.password = '';
  url.search = '';
  return url.toString();
}
