import * as v from 'valibot';
import { int64Schema, isPlainText, plainInt64, textSchema } from './plant.js';
import { PLANT_FIELDS } from './plant-fields.js';
import { objectMessage, validate } from './validate.js';

export const INT32_MAX = 2 ** 31 - 1;

/** At most this many tags in one filter (keeps queries bounded). */
export const MAX_TAG_FILTERS = 100;

/** Options of a listing: `limit` (0 … 2^31-1, absent = all), `after` (keyset cursor), `tags` (any of). */
export const ListPlantsOptionsSchema = v.strictObject(
  {
    limit: v.exactOptional(
      v.pipe(
        v.number(`limit must be an integer between 0 and ${INT32_MAX}`),
        v.integer(`limit must be an integer between 0 and ${INT32_MAX}`),
        v.minValue(0, `limit must be an integer between 0 and ${INT32_MAX}`),
        v.maxValue(INT32_MAX, `limit must be an integer between 0 and ${INT32_MAX}`),
      ),
    ),
    after: v.exactOptional(int64Schema('after')),
    tags: v.exactOptional(
      v.pipe(
        v.array(textSchema('tag', PLANT_FIELDS.tag.maxLength), 'tags must be an array of tags'),
        v.maxLength(MAX_TAG_FILTERS, `at most ${MAX_TAG_FILTERS} tag filters are allowed`),
      ),
    ),
  },
  objectMessage('list options must be an object'),
);

export type ListPlantsOptions = v.InferOutput<typeof ListPlantsOptionsSchema>;
export type ListPlantsInput = v.InferInput<typeof ListPlantsOptionsSchema>;

/**
 * Validates list options against {@link ListPlantsOptionsSchema}. Plain,
 * valid options (what the HTTP adapter passes) are checked directly; anything
 * else, and every error, goes through the schema, which stays the one source
 * of the rules and messages. The direct check accepts nothing the schema
 * rejects and returns what it would (see plain-input.test.ts).
 */
export function parseListPlantsOptions(input: unknown): ListPlantsOptions {
  return plainListPlantsOptions(input) ?? validate(ListPlantsOptionsSchema, input);
}

/** The options plain, valid input describes, or `undefined` to leave the decision to the schema. */
export function plainListPlantsOptions(input: unknown): ListPlantsOptions | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  const record = input as Record<string, unknown>;
  for (const key in record) if (key !== 'limit' && key !== 'after' && key !== 'tags') return undefined;
  const options: { limit?: number; after?: bigint; tags?: string[] } = {};
  if ('limit' in record) {
    const limit = record['limit'];
    if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 0 || limit > INT32_MAX) return undefined;
    options.limit = limit;
  }
  if ('after' in record) {
    const after = plainInt64(record['after']);
    if (after === undefined) return undefined;
    options.after = after;
  }
  if ('tags' in record) {
    const tags = record['tags'];
    if (!Array.isArray(tags) || tags.length > MAX_TAG_FILTERS) return undefined;
    for (const tag of tags) if (!isPlainText(tag, PLANT_FIELDS.tag.maxLength)) return undefined;
    options.tags = [...tags];
  }
  return options;
}
