import * as v from 'valibot';
import { objectMessage, validate } from './validate.js';
import { INT64_MAX, INT64_MIN, int64FromDecimal } from './int64.js';
import { isInexactNumber } from '../json/json-codec.js';

/** Counts code points, so an emoji is one character, as users count them. */
const codePoints = (text: string): number => {
  let count = 0;
  for (const _ of text) count++;
  return count;
};

// A surrogate half without its partner cannot be stored or sent as UTF-8.
const LONE_SURROGATE = /\p{Cs}/u;

const text = (field: string, max: number) =>
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

/** Longest plant name, in characters (code points). The schemas, the fast paths and the OpenAPI document all read it. */
export const PLANT_NAME_MAX_LENGTH = 256;
/** Longest plant tag, in characters (code points). */
export const PLANT_TAG_MAX_LENGTH = 64;

export const PlantNameSchema = text('name', PLANT_NAME_MAX_LENGTH);
export const PlantTagSchema = text('tag', PLANT_TAG_MAX_LENGTH);

/** Body of a create: `{ id, name, tag? }`; any other property is an error. */
export const NewPlantSchema = v.pipe(
  v.custom<Record<string, unknown>>(isJsonObject, 'plant must be a JSON object'),
  v.strictObject(
    {
      id: PlantIdSchema,
      name: PlantNameSchema,
      // Absent is fine; null is not (tag is omitted, never null, in outputs).
      tag: v.exactOptional(PlantTagSchema),
    },
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
  for (const key in input) if (key !== 'id' && key !== 'name' && key !== 'tag') return undefined;
  if (!('id' in input) || !('name' in input)) return undefined;
  const id = plainInt64(input['id']);
  const name = input['name'];
  if (id === undefined || !isPlainText(name, PLANT_NAME_MAX_LENGTH)) return undefined;
  if (!('tag' in input)) return { id, name };
  const tag = input['tag'];
  return isPlainText(tag, PLANT_TAG_MAX_LENGTH) ? { id, name, tag } : undefined;
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

/** A stored plant. Same shape as {@link NewPlant}; `tag` is absent, never null. */
export type Plant = NewPlant;

/** True when two plants carry the same content (used for retry-safe create). */
export function samePlant(a: Plant, b: Plant): boolean {
  return a.id === b.id && a.name === b.name && a.tag === b.tag;
}

/** The wire form of a plant: tag omitted when absent, id exact digits. */
export function plantToJson(plant: Plant): string {
  const tag = plant.tag === undefined ? '' : `,"tag":${jsonString(plant.tag)}`;
  return `{"id":${plant.id},"name":${jsonString(plant.name)}${tag}}`;
}

// The only characters JSON.stringify escapes in a string: quote, backslash,
// control characters and (unpaired) surrogates.
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** `JSON.stringify(text)`, skipping the serializer for text that needs no escape (most names; lists write one per plant). */
function jsonString(text: string): string {
  return NEEDS_ESCAPE.test(text) ? JSON.stringify(text) : `"${text}"`;
}
