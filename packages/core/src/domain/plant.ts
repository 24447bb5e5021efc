import * as v from 'valibot';
import { objectMessage, validate } from './validate.js';
import { INT64_MAX, INT64_MIN, int64FromDecimal } from './int64.js';
import { isInexactNumber } from '../json/json-codec.js';
import { PLANT_FIELDS, type PlantField } from './plant-fields.js';

/** Counts code points, so an emoji is one character, as users count them. */
const codePoints = (text: string): number => {
  let count = 0;
  for (const _ of text) count++;
  return count;
};

// A surrogate half without its partner cannot be stored or sent as UTF-8.
const LONE_SURROGATE = /\p{Cs}/u;

/** A text value: 1 to `max` characters (code points), valid Unicode, no NUL. */
export const textSchema = (field: string, max: number) =>
  v.pipe(
    v.string(`${field} must be a string of 1 to ${max} characters`),
    v.check((value) => value.length > 0 && codePoints(value) <= max, `${field} must be a string of 1 to ${max} characters`),
    v.check((value) => !LONE_SURROGATE.test(value), `${field} must be valid Unicode text`),
    // PostgreSQL text cannot hold U+0000: refused here for every storage, so all agree.
    v.check((value) => !value.includes('\0'), `${field} must not contain the NUL character`),
  );

/**
 * A plant id: a `bigint` in int64, a safe-integer `number`, or a number the
 * JSON codec kept exact. Strings are rejected; so are numbers that would
 * need rounding (use `bigint` beyond 2^53).
 */
export function int64Schema(field: string) {
  const message = `${field} must be an integer between ${INT64_MIN} and ${INT64_MAX}`;
  return v.pipe(
    v.custom<bigint | number | object>((value) => typeof value === 'bigint' || typeof value === 'number' || isInexactNumber(value), message),
    v.transform((value): bigint | undefined => (typeof value === 'object' ? int64FromDecimal(String(value)) : plainInt64(value))),
    v.custom<bigint>((value) => value !== undefined, message),
  );
}

export const PlantIdSchema = int64Schema('id');

type Fields = typeof PLANT_FIELDS;
/** The name of a plant field (see {@link PLANT_FIELDS}). */
export type PlantFieldName = keyof Fields;
type ValueSchema<F> = F extends { readonly type: 'int64' } ? ReturnType<typeof int64Schema> : ReturnType<typeof textSchema>;
type FieldSchemas = {
  readonly [K in PlantFieldName]: Fields[K] extends { readonly optional: true }
    ? v.ExactOptionalSchema<ValueSchema<Fields[K]>, undefined>
    : ValueSchema<Fields[K]>;
};

const FIELDS = Object.entries(PLANT_FIELDS) as [PlantFieldName, PlantField][];
/** The plant's field names in order: the keys of its JSON, and the SQL storages' column names. */
export const PLANT_FIELD_NAMES: readonly PlantFieldName[] = FIELDS.map(([name]) => name);
const FIELD_NAME_SET = new Set<string>(PLANT_FIELD_NAMES);

const valueSchema = (name: string, field: PlantField) => (field.type === 'int64' ? int64Schema(name) : textSchema(name, field.maxLength!));

/** Body of a create: the fields of {@link PLANT_FIELDS}; any other property is an error. */
export const NewPlantSchema = v.pipe(
  v.custom<Record<string, unknown>>(isJsonObject, 'plant must be a JSON object'),
  v.strictObject(
    // An optional field may be absent, not null (it is omitted, never null, in outputs).
    Object.fromEntries(
      FIELDS.map(([name, field]) => [name, field.optional ? v.exactOptional(valueSchema(name, field)) : valueSchema(name, field)]),
    ) as FieldSchemas,
    objectMessage('plant must be a JSON object'),
  ),
);

/** A plain object, as opposed to an array, null or a primitive. */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export type NewPlant = v.InferOutput<typeof NewPlantSchema>;

/**
 * Validates a create body against {@link NewPlantSchema}. Plain,
 * well-formed input (every request body in practice) is checked directly;
 * anything else, and every error, goes through the schema, which stays the
 * one source of the rules and messages. The direct check accepts nothing
 * the schema rejects and returns what it would (see plain-input.test.ts).
 */
export function parseNewPlant(input: unknown): NewPlant {
  return plainNewPlant(input) ?? validate(NewPlantSchema, input);
}

/** Validates a plant id against {@link PlantIdSchema}; an int64 `bigint` (what adapters pass) needs no schema run. */
export function parsePlantId(input: unknown): bigint {
  return typeof input === 'bigint' && input >= INT64_MIN && input <= INT64_MAX ? input : validate(PlantIdSchema, input);
}

/** The plant a plain, valid create body describes, or `undefined` to leave the decision to the schema. */
export function plainNewPlant(input: unknown): NewPlant | undefined {
  if (!isJsonObject(input)) return undefined;
  for (const key in input) if (!FIELD_NAME_SET.has(key)) return undefined;
  const plant: Record<string, unknown> = {};
  for (const [name, field] of FIELDS) {
    if (!(name in input)) {
      if (field.optional) continue;
      return undefined;
    }
    const value = input[name];
    const plain = field.type === 'int64' ? plainInt64(value) : isPlainText(value, field.maxLength!) ? value : undefined;
    if (plain === undefined) return undefined;
    plant[name] = plain;
  }
  return plant as NewPlant;
}

/** An int64 `bigint` or safe-integer `number` as a `bigint`; `undefined` for anything the schema has to look at. */
export function plainInt64(value: unknown): bigint | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? BigInt(value) : undefined;
  if (typeof value === 'bigint') return value >= INT64_MIN && value <= INT64_MAX ? value : undefined;
  return undefined;
}

/** A string of 1 to `max` UTF-16 units (so at most `max` characters) with no lone surrogate and no NUL. */
export function isPlainText(value: unknown, max: number): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= max && isWellFormed(value) && !value.includes('\0');
}

// ES2024 (Node 20 has it; the ES2022 lib does not declare it). Same verdict as
// LONE_SURROGATE, without running a regular expression.
const isWellFormed = (text: string): boolean => (text as unknown as { isWellFormed(): boolean }).isWellFormed();

/** A stored plant. Same shape as {@link NewPlant}; an optional field is absent, never null. */
export type Plant = NewPlant;

/** True when two plants carry the same content (used for retry-safe create). */
export function samePlant(a: Plant, b: Plant): boolean {
  return PLANT_FIELD_NAMES.every((name) => a[name] === b[name]);
}

/**
 * A fresh plant from a plant or a storage row: its fields by name, or by
 * position in {@link PLANT_FIELD_NAMES} order from an array; a field that
 * is absent or NULL is left out.
 */
export function copyPlant(source: object): Plant {
  const plant: Record<string, unknown> = {};
  const byPosition = Array.isArray(source);
  PLANT_FIELD_NAMES.forEach((name, index) => {
    const value = (source as Record<string | number, unknown>)[byPosition ? index : name];
    if (value !== undefined && value !== null) plant[name] = value;
  });
  return plant as Plant;
}

/** The plant's column values in {@link PLANT_FIELD_NAMES} order, null for an absent field. */
export function plantColumns(plant: Plant): unknown[] {
  return PLANT_FIELD_NAMES.map((name) => plant[name] ?? null);
}

/** `"a, b or c"`: how messages and the OpenAPI prose list the fields. */
export function wordList(words: readonly string[], last: 'and' | 'or'): string {
  return words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} ${last} ${words.at(-1)}`;
}

/** What a plant holds besides its id, in words ("name or tag"), as the conflict message and the API document say it. */
export const PLANT_CONTENT_IN_WORDS = wordList(PLANT_FIELD_NAMES.slice(1), 'or');

/** The wire form of a plant: fields in table order, absent ones omitted, the id as exact digits. */
export function plantToJson(plant: Plant): string {
  let json = '';
  for (const [name, field] of FIELDS) {
    const value = plant[name as keyof Plant];
    if (value !== undefined) json += `${json === '' ? '{' : ','}"${name}":${field.type === 'text' ? JSON.stringify(value) : String(value)}`;
  }
  return `${json}}`;
}
