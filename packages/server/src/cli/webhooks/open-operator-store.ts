import { existsSync } from 'node:fs';
import { createPlantStore, type PlantStore } from '@plant-store/core';
import type { CliIo } from '../cli-io.js';
import { errorLine } from '../error-line.js';
import { loadConfig } from '../../config/load-config.js';
import { SETTINGS, settingName } from '../../config/settings.js';
import { openStorage, type StorageSettings } from '../../storage/open-storage.js';
import { STORAGE_FLAGS, UsageError, type StorageFlags } from '../command-args.js';

/** Storage settings taken from variables only: an operator command keeps the service's bound of parked messages when it disables an endpoint. */
const STORAGE_VARIABLES = [...(Object.keys(STORAGE_FLAGS) as (keyof typeof STORAGE_FLAGS)[]), 'webhookParkedLimit'] as const;

/** The storage settings as `serve` reads them, from the storage flags and variables only (another bad setting does not matter here). */
export function storageSettings(flags: StorageFlags, env: NodeJS.ProcessEnv): StorageSettings {
  const storageEnv: NodeJS.ProcessEnv = {};
  for (const key of STORAGE_VARIABLES) {
    const name = SETTINGS[key].env;
    if (env[name] !== undefined) storageEnv[name] = env[name];
  }
  const { storage, db, databaseUrl, dbPool, dbSchema, webhookParkedLimit } = loadConfig({ help: false, values: flags }, storageEnv);
  // A memory service's data lives in its own process: a new, empty memory here would answer falsely.
  if (storage === 'memory') throw new UsageError(`${settingName('storage')} is memory: only the service's own process can see its data`);
  const settings = { storage, db, dbPool, dbSchema, webhookParkedLimit };
  return databaseUrl === undefined ? settings : { ...settings, databaseUrl };
}

/** The service's retention as `serve` reads it, in ms; `null` when it is off. */
export function configuredRetention(env: NodeJS.ProcessEnv): number | null {
  const name = SETTINGS.webhookRetention.env;
  return loadConfig({ help: false, values: {} }, env[name] === undefined ? {} : { [name]: env[name] }).webhookRetentionMs;
}

/**
 * Runs `operation` on a store over the service's storage with no transport (the running service sends what it queues);
 * resolves with its exit status, or 1 with one line on stderr. A missing database is an error, not a new empty one.
 */
export async function onOperatorStore(settings: StorageSettings, io: CliIo, operation: (store: PlantStore) => Promise<number>): Promise<number> {
  try {
    if (settings.storage === 'sqlite' && !existsSync(settings.db)) {
      throw new Error(`database ${settings.db} does not exist (set ${SETTINGS.db.env} or --db)`);
    }
    const store = createPlantStore({ storage: (await openStorage(settings, false)).storage });
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
