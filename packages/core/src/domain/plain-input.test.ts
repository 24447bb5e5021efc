import fc from 'fast-check';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../errors.js';
import { parseJson } from '../json/json-codec.js';
import { ListPlantsOptionsSchema, parseListPlantsOptions, plainListPlantsOptions } from './list-options.js';
import { NewPlantSchema, PLANT_FIELD_NAMES, PlantIdSchema, parseNewPlant, parsePlantId, plainNewPlant } from './plant.js';
import { PLANT_FIELDS } from './plant-fields.js';

// The direct checks in front of the valibot schemas (plainNewPlant,
// plainListPlantsOptions, parsePlantId) must never accept what a schema
// rejects, and must return exactly what it would.

/** Values of every kind the schemas meet: JSON values (exact and inexact numbers), bigints, odd strings, non-plain objects. */
const anyValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.integer(),
    fc.constantFrom(0, -0, 1.5, NaN, Infinity, -Infinity, 2 ** 53, -(2 ** 53), Number.MAX_SAFE_INTEGER, 2147483647, 2147483648, -1),
    fc.double(),
    fc.bigInt({ min: -(2n ** 64n), max: 2n ** 64n }),
    fc.constantFrom(9223372036854775807n, -9223372036854775808n, 9223372036854775808n, -9223372036854775809n),
    fc.constantFrom('1e3', '20.0', '1.5', '92233720368547758070').map((literal) => (parseJson(`[${literal}]`) as unknown[])[0]),
    fc.string({ maxLength: 70 }),
    fc.string({ minLength: 60, maxLength: 300, unit: 'grapheme' }),
    fc.constantFrom('', 'a', '\ud800', 'a\udc00b', '🌵', '🌵'.repeat(200), 'x'.repeat(256), 'x'.repeat(257), 't'.repeat(64), 't'.repeat(65)),
    fc.constantFrom(null, undefined, true, false, [], {}, new Date(0), Object.create(null) as object),
    fc.array(tie('value'), { maxLength: 3 }),
    tie('record'),
  ),
  record: fc.dictionary(fc.oneof(fc.constantFrom(...PLANT_FIELD_NAMES, 'tags', 'limit', 'after'), fc.string({ maxLength: 4 })), tie('value'), { maxKeys: 4 }),
})).value;

const plausibleInt = fc.oneof(
  fc.integer(),
  fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
  // The edges: safe integers, int32, int64, and integral doubles beyond 2^53.
  fc.constantFrom(2 ** 53, -(2 ** 53), 2 ** 53 + 2, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 1e21, 1e300, 0.5, -0),
  fc.constantFrom(2 ** 31 - 1, 2 ** 31, 9223372036854775807n, -9223372036854775808n, 2n ** 63n, -(2n ** 63n) - 1n),
  anyValue,
);
const plausibleText = fc.oneof(fc.string({ minLength: 1, maxLength: 80 }), anyValue);

/** An object with the `required` entries, some of the others, and now and then one more key. */
function shaped(entries: Record<string, fc.Arbitrary<unknown>>, required: string[] = []): fc.Arbitrary<unknown> {
  const extra = fc.oneof({ arbitrary: fc.constant(undefined), weight: 5 }, { arbitrary: fc.tuple(fc.string({ maxLength: 6 }), anyValue), weight: 1 });
  return fc
    .tuple(fc.oneof(fc.record(entries, { requiredKeys: required }), fc.record(entries, { requiredKeys: [] })), extra)
    .map(([record, more]) => (more === undefined ? record : { ...record, [more[0]]: more[1] }));
}

/** Runs the property and checks that the direct path decided a fair share of the cases itself. */
function assertSameAsSchema<T>(
  inputs: fc.Arbitrary<unknown>,
  schema: v.GenericSchema<unknown, T>,
  direct: (input: unknown) => T | undefined,
  parse: (input: unknown) => T,
): void {
  let decided = 0;
  fc.assert(
    fc.property(inputs, (input) => {
      const expected = v.safeParse(schema, input, { abortEarly: true });
      const shortcut = direct(input);
      if (shortcut !== undefined) {
        decided++;
        expect(expected.success).toBe(true);
        expect(shortcut).toStrictEqual(expected.output);
      }
      if (expected.success) expect(parse(input)).toStrictEqual(expected.output);
      else expect(() => parse(input)).toThrow(ValidationError);
    }),
    { numRuns: 3000 },
  );
  expect(decided).toBeGreaterThan(100);
}

describe('direct checks in front of the schemas', () => {
  it('parseNewPlant accepts only what NewPlantSchema accepts, and returns what it returns', () => {
    expect(plainNewPlant({ id: 1, name: 'a' })).toEqual({ id: 1n, name: 'a' });
    // Every field of the table, each with values of its type and of every other kind.
    const fields = Object.entries(PLANT_FIELDS) as [string, { type: string; optional?: true }][];
    const entries = Object.fromEntries(fields.map(([name, field]) => [name, field.type === 'int64' ? plausibleInt : plausibleText]));
    const inputs = fc.oneof(
      shaped(
        entries,
        fields.filter(([, field]) => !field.optional).map(([name]) => name),
      ),
      anyValue,
    );
    assertSameAsSchema(inputs, NewPlantSchema, plainNewPlant, parseNewPlant);
  });

  it('parseListPlantsOptions accepts only what ListPlantsOptionsSchema accepts, and returns what it returns', () => {
    expect(plainListPlantsOptions({ limit: 20, after: 5n })).toEqual({ limit: 20, after: 5n });
    const limit = fc.oneof(fc.integer({ min: -5, max: 2 ** 31 + 5 }), anyValue);
    const tags = fc.oneof(fc.array(plausibleText, { maxLength: 4 }), fc.constant(Array.from({ length: 101 }, () => 't')), anyValue);
    const inputs = fc.oneof(shaped({ limit, after: plausibleInt, tags }), anyValue);
    assertSameAsSchema(inputs, ListPlantsOptionsSchema, plainListPlantsOptions, parseListPlantsOptions);
  });

  it('parsePlantId validates as PlantIdSchema does', () => {
    fc.assert(
      fc.property(fc.oneof(plausibleInt, anyValue), (input) => {
        const expected = v.safeParse(PlantIdSchema, input, { abortEarly: true });
        if (expected.success) expect(parsePlantId(input)).toBe(expected.output);
        else expect(() => parsePlantId(input)).toThrow(ValidationError);
      }),
      { numRuns: 2000 },
    );
  });
});
