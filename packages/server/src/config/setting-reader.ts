import { ConfigurationError } from '@plant-store/core';
import { describeFsError } from './describe-fs-error.js';
import { parseDuration } from './parse-duration.js';
import { SETTINGS, settingName, type SettingKey } from './settings.js';

/** Typed access to the settings of one invocation; every reader throws a `ConfigurationError` naming the setting. */
export type SettingReader = ReturnType<typeof settingReader>;

function basicReader(flags: Partial<Record<SettingKey, string>>, env: NodeJS.ProcessEnv) {
  const raw = (key: SettingKey): string | undefined => {
    if (flags[key] !== undefined) return flags[key];
    const fromEnv = env[SETTINGS[key].env];
    return fromEnv === undefined || fromEnv.trim() === '' ? undefined : fromEnv;
  };
  const text = (key: SettingKey): string => raw(key) ?? SETTINGS[key].default ?? '';
  const fail = (key: SettingKey, message: string) => new ConfigurationError(settingName(key), message);
  // Shown in errors for settings that cannot hold secrets, to make typos obvious.
  const got = (key: SettingKey) => ` (got ${JSON.stringify(truncate(text(key)))})`;
  const choice = <T extends string>(key: SettingKey, choices: readonly T[]): T => {
    const value = text(key).trim().toLowerCase();
    if (!(choices as readonly string[]).includes(value)) throw fail(key, `must be one of ${choices.join(', ')}${got(key)}`);
    return value as T;
  };
  return { raw, text, fail, got, choice };
}

function numberReaders({ text, fail, got }: ReturnType<typeof basicReader>) {
  return {
    integer(key: SettingKey, min: number, max: number, rule: string): number {
      const value = text(key).trim();
      const number = /^\d+$/.test(value) ? Number(value) : Number.NaN;
      if (!(number >= min && number <= max)) throw fail(key, `${rule}${got(key)}`);
      return number;
    },
    duration(key: SettingKey, min: number, max?: number): number {
      const ms = parseDuration(text(key), max);
      if (ms === undefined || ms < min) {
        const rule = min > 0 ? 'must be a positive duration' : 'must be a duration';
        throw fail(key, `${rule} such as 500ms, 5s, 5m or 2h${got(key)}`);
      }
      return ms;
    },
  };
}

function nameReaders({ raw, text, fail }: ReturnType<typeof basicReader>, readFile: (path: string) => string) {
  return {
    identifier(key: SettingKey): string {
      const value = text(key).trim();
      if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(value)) throw fail(key, `must be a name of letters, digits and _ (got ${JSON.stringify(truncate(value))})`);
      return value;
    },
    file(key: SettingKey): { path: string; content: string } | undefined {
      const path = raw(key)?.trim();
      if (path === undefined) return undefined;
      if (path === '') throw fail(key, 'must be a file path');
      try {
        return { path, content: readFile(path) };
      } catch (error) {
        throw fail(key, `cannot read ${path}: ${describeFsError(error)}`);
      }
    },
  };
}

/** A flag wins over its variable, an empty variable counts as unset, and a missing one falls back to the default. */
export function settingReader(flags: Partial<Record<SettingKey, string>>, env: NodeJS.ProcessEnv, readFile: (path: string) => string) {
  const basic = basicReader(flags, env);
  return {
    ...basic,
    bool: (key: SettingKey): boolean => basic.choice(key, ['true', 'false'] as const) === 'true',
    ...numberReaders(basic),
    ...nameReaders(basic, readFile),
  };
}

function truncate(value: string): string {
  return value.length > 40 ? `${value.slice(0, 40)}…` : value;
}
