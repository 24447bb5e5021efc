import { ConfigurationError, ValidationError } from '@plant-store/core';

/** Parses a JSON array setting; errors name the setting, the file and the item index, never the text: it may hold secrets. */
export function parseJsonArraySetting<T>(text: string, parseItem: (item: unknown) => T, name: string, source?: string): T[] {
  const where = source === undefined ? '' : `${source}: `;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ConfigurationError(name, `${where}not valid JSON${whereInText(text, String((error as Error).message))} (expected a JSON array)`);
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

/** ` at line L, column C` from the parser's position (its messages may quote the text), else at the first trailing comma. */
function whereInText(text: string, message: string): string {
  if (message.includes('end of JSON input')) return ': it ends too early';
  const reported = /at position (\d+)/.exec(message)?.[1];
  const trailingComma = reported === undefined ? /,\s*[\]}]/.exec(text)?.index : undefined;
  const position = reported === undefined ? trailingComma : Number(reported);
  if (position === undefined) return '';
  const before = text.slice(0, position).split('\n');
  return ` at line ${before.length}, column ${before.at(-1)!.length + 1}${trailingComma === undefined ? '' : ' (a trailing comma)'}`;
}
