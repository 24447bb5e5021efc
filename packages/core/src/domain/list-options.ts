import * as v from 'valibot';
import { int64Schema, PlantTagSchema } from './plant.js';

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
        v.array(PlantTagSchema, 'tags must be an array of tags'),
        v.maxLength(MAX_TAG_FILTERS, `at most ${MAX_TAG_FILTERS} tag filters are allowed`),
      ),
    ),
  },
  (issue) =>
    issue.expected === 'never'
      ? `unknown list option '${String(issue.path?.at(-1)?.key ?? '')}'`
      : 'list options must be an object',
);

export type ListPlantsOptions = v.InferOutput<typeof ListPlantsOptionsSchema>;
export type ListPlantsInput = v.InferInput<typeof ListPlantsOptionsSchema>;
