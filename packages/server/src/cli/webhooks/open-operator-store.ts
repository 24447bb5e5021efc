import { existsSync } from 'node:fs';
import { createPlantStore, type PlantStore } from '@plant-store/core';
import type { CliIo } from '../cli-io.js';
import { errorLine } from '../error-line.js';
import { loadConfig } from '../../config/load-config.js';
import { SETTINGS, settingName } from '../../config/settings.js';
import { openStorage, type StorageSettings } from '../../storage/open-storage.js';
import { STORAGE_FLAGS, UsageError, type StorageFlags } from '../command-args.js';

/**
 * The storage settings exactly as `serve` reads them, from the storage flags
 * and variables only (a problem in another setting does not stop operator
 * commands). Memory storage is refused.
 */
export function storageSettings(flags: StorageFlags, env: NodeJS.ProcessEnv): StorageSettings {
  const storageEnv: NodeJS.ProcessEnv = {};
  for (const key of Object.keys(STORAGE_FLAGS) as (keyof typeof STORAGE_FLAGS)[]) {
    const name = SETTINGS[key].env;
    if (env[name] !== undefined) storageEnv[name] = env[name];
  }
  const { storage, db, databaseUrl, dbPool, dbSchema } = loadConfig({ help: false, values: flags }, storageEnv);
  // A memory service's data lives in its own process: a new, empty memory here would answer falsely.
  if (storage === 'memory') throw new UsageError(`${settingName('storage')} is memory: only the service's own process can see its data`);
  return databaseUrl === undefined ? { storage, db, dbPool, dbSchema } : { storage, db, databaseUrl, dbPool, dbSchema };
}

/**
 * The service's retention as `serve` reads it (`PLANT_STORE_WEBHOOK_RETENTION`,
 * same default and errors), in ms; `null` when it is off.
 */
export function configuredRetention(env: NodeJS.ProcessEnv): number | null {
  const name = SETTINGS.webhookRetention.env;
  return loadConfig({ help: false, values: {} }, env[name] === undefined ? {} : { [name]: env[name] }).webhookRetentionMs;
}

/**
 * A store over the service's storage, for operator commands: no transport
 * (a running service sends what these commands queue) and no tokens. A
 * SQLite file or PostgreSQL schema that does not exist is an error rather
 * than a new empty database.
 */
async function openOperatorStore(settings: StorageSettings): Promise<PlantStore> {
  if (settings.storage === 'sqlite' && !existsSync(settings.db)) {
    throw new Error(`database ${settings.db} does not exist (set ${SETTINGS.db.env} or --db)`);
  }
  const { storage } = await openStorage(settings, false);
  return createPlantStore({ storage });
}

/**
 * Runs `operation` on an operator store, closing it afterwards; resolves with
 * its exit status, or 1 with one line on stderr when storage cannot be opened
 * or the operation fails.
 */
export async function onOperatorStore(settings: StorageSettings, io: CliIo, operation: (store: PlantStore) => Promise<number>): Promise<number> {
  try {
    const store = await openOperatorStore(settings);
    try {
      return await operation(store);
    } finally {
      await store.close();
    }
  } catch (error) {
    io.stderr.write(errorLine(error));
    return 1;
  }
}
