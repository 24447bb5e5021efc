import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ConfigurationError } from '@plant-store/core';
import type { SettingKey } from '../config/settings.js';
import type { CliIo } from './cli-io.js';
import { errorLine } from './error-line.js';

/** A command-line mistake: exit status 2 with one line. */
export class UsageError extends Error {}

/** The storage settings an operator command may be given as flags (the rest of `serve`'s do not apply). */
export const STORAGE_FLAGS = { storage: 'storage', db: 'db', databaseUrl: 'database-url', dbSchema: 'db-schema', dbPool: 'db-pool' } as const satisfies Partial<
  Record<SettingKey, string>
>;
export type StorageFlags = Partial<Record<keyof typeof STORAGE_FLAGS, string>>;

export const STORAGE_OPTIONS = Object.fromEntries(Object.values(STORAGE_FLAGS).map((flag) => [flag, { type: 'string' as const }]));

const STORAGE_FLAG_NAMES: readonly string[] = Object.values(STORAGE_FLAGS);

/** `node:util`'s strict `parseArgs`, its mistakes as a `UsageError` with one line. */
export function parseStrict<Values>(
  args: readonly string[],
  options: NonNullable<ParseArgsConfig['options']>,
  allowPositionals: boolean,
): { values: Values; positionals: string[] } {
  try {
    const parsed = parseArgs({ args: [...args], allowPositionals, strict: true, options });
    return { values: parsed.values as Values, positionals: parsed.positionals };
  } catch (error) {
    // node:util's messages are long and mention "parseArgs"; keep the useful first sentence.
    throw new UsageError(
      String((error as Error).message)
        .split('. ')[0]!
        .replace(/^Unknown option/, 'unknown option'),
    );
  }
}

export function storageFlags(values: Readonly<Record<string, unknown>>): StorageFlags {
  const storage: StorageFlags = {};
  for (const [key, flag] of Object.entries(STORAGE_FLAGS) as [keyof typeof STORAGE_FLAGS, string][]) {
    const value = values[flag];
    if (value === '') throw new UsageError(`--${flag} must not be empty`);
    if (typeof value === 'string') storage[key] = value;
  }
  return storage;
}

export function nonEmpty(value: string | undefined, flag: string): string | undefined {
  if (value === '') throw new UsageError(`--${flag} must not be empty`);
  return value;
}

/** Refuses options that `what` does not take (storage flags go with all). */
export function refuseOtherOptions(values: object, what: string, allowed: readonly string[]): void {
  const extra = Object.keys(values).find((name) => !allowed.includes(name) && !STORAGE_FLAG_NAMES.includes(name));
  if (extra !== undefined) throw new UsageError(`${what} does not take --${extra}`);
}

/** A mistake in arguments or settings: one line pointing at the command's help, exit status 2. Anything else is rethrown. */
export function usageMistake(error: unknown, command: string, io: CliIo): number {
  if (!(error instanceof UsageError) && !(error instanceof ConfigurationError)) throw error;
  io.stderr.write(errorLine(error).replace(/\n$/, ` (see plant-store ${command} --help)\n`));
  return 2;
}
