import { ConfigurationError, ValidationError } from '@plant-store/core';

/**
 * Parses a setting that holds a JSON array and validates each item with
 * `parseItem` (which throws core's `ValidationError`). Errors name the
 * setting (`name`), where the text came from (`source`: a file path, or
 * nothing for the variable itself) and the item index, but never echo the
 * text: it may hold tokens or webhook secrets, and `JSON.parse` messages
 * quote their input.
 */
export function parseJsonArraySetting<T>(
  text: string,
  parseItem: (item: unknown) => T,
  name: string,
  source?: string,
): T[] {
  const where = source === undefined ? '' : `${source}: `;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ConfigurationError(name, `${where}not valid JSON (expected a JSON array)`);
  }
  if (!Array.isArray(parsed)) throw new ConfigurationError(name, `${where}must be a JSON array`);
  return parsed.map((item, index) => {
    try {
      return parseItem(item);
    } catch (error) {
      if (error instanceof ValidationError) throw new ConfigurationError(name, `${where}entry [${index}]: ${error.message}`);
      throw error;
    }
  });
}
