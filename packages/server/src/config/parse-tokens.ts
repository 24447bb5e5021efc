import { ConfigurationError, ValidationError, type StaticTokenEntry } from '@plant-store/core';
import { StaticTokenEntrySchema, validate } from '@plant-store/core/adapter';
import { parseJsonArraySetting } from './json-setting.js';

export type TokenEntry = StaticTokenEntry;

// A token with spaces or control characters could never be presented in `Authorization: Bearer <token>`.
const PRESENTABLE = /^[\x21-\x7e]+$/;
const PRESENTABLE_MESSAGE = 'token must be printable ASCII without spaces';

/** Parses `PLANT_STORE_TOKENS`; the tenant follows the last `=` (tokens may end in base64 padding); errors name entries by position only. */
export function parseTokenList(text: string, name: string): TokenEntry[] {
  const entries: TokenEntry[] = [];
  text.split(',').forEach((raw, index) => {
    const item = raw.trim();
    if (item === '') return;
    const fail = (message: string) => new ConfigurationError(name, `entry ${index + 1}: ${message}`);
    const separator = item.lastIndexOf('=');
    if (separator <= 0) throw fail('must be token=tenant or sha256:<64 hex digits>=tenant');
    const credential = item.slice(0, separator).trim();
    const tenant = item.slice(separator + 1).trim();
    const input = credential.toLowerCase().startsWith('sha256:') ? { sha256: credential.slice('sha256:'.length), tenant } : { token: credential, tenant };
    if (input.token !== undefined && !PRESENTABLE.test(input.token)) throw fail(PRESENTABLE_MESSAGE);
    try {
      entries.push(validate(StaticTokenEntrySchema, input));
    } catch (error) {
      if (error instanceof ValidationError) throw fail(error.message);
      throw error;
    }
  });
  return entries;
}

export function parseTokenFile(text: string, name: string, path: string): TokenEntry[] {
  const entries = parseJsonArraySetting(text, (item) => validate(StaticTokenEntrySchema, item), name, path);
  entries.forEach((entry, index) => {
    if (entry.token !== undefined && !PRESENTABLE.test(entry.token)) {
      throw new ConfigurationError(name, `${path}: entry [${index}]: ${PRESENTABLE_MESSAGE}`);
    }
  });
  return entries;
}
