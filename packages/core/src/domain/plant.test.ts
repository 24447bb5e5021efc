import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJson } from '../json/json-codec.js';
import { validate } from './validate.js';
import { NewPlantSchema, parseNewPlant, plantToJson } from './plant.js';
import { ValidationError } from '../errors.js';

const parsePlant = (json: string) => validate(NewPlantSchema, parseJson(json));
const failure = (json: string) => {
  try {
    parsePlant(json);
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return { field: (error as ValidationError).field, message: (error as ValidationError).message };
  }
  throw new Error(`expected ${json} to be rejected`);
};

describe('NewPlantSchema over the JSON codec', () => {
  it('keeps int64 extremes exact', () => {
    expect(parsePlant('{"id":9223372036854775807,"name":"a"}').id).toBe(9223372036854775807n);
    expect(parsePlant('{"id":-9223372036854775808,"name":"a"}').id).toBe(-9223372036854775808n);
  });

  it.each([
    ['20', 20n],
    ['20.0', 20n],
    ['2e1', 20n],
    ['2E+1', 20n],
    ['200e-1', 20n],
    ['-0', 0n],
    ['0.0e5', 0n],
    ['9223372036854775807.000', 9223372036854775807n],
    ['92233720368547758.07e2', 9223372036854775807n],
  ])('accepts the integer spelling %s', (spelling, id) => {
    expect(parsePlant(`{"id":${spelling},"name":"a"}`).id).toBe(id);
  });

  it.each(['1.5', '1.0000000000000001', '9223372036854775808', '-9223372036854775809', '1e19', '1e999999999', '"5"', 'null', 'true', '[]'])(
    'rejects the id %s naming the field',
    (spelling) => {
      expect(failure(`{"id":${spelling},"name":"a"}`)).toMatchObject({ field: 'id', message: expect.stringContaining('id must be an integer') });
    },
  );

  it('validates name and tag lengths in characters', () => {
    expect(parsePlant(`{"id":1,"name":"${'🌵'.repeat(256)}"}`).name).toHaveLength(512);
    expect(failure(`{"id":1,"name":"${'a'.repeat(257)}"}`).field).toBe('name');
    expect(failure('{"id":1,"name":""}').field).toBe('name');
    expect(failure(`{"id":1,"name":"a","tag":"${'a'.repeat(65)}"}`).field).toBe('tag');
    expect(failure('{"id":1,"name":"a","tag":""}').field).toBe('tag');
  });

  it('rejects tag: null, missing fields and unknown properties by name', () => {
    expect(failure('{"id":1,"name":"a","tag":null}')).toMatchObject({ field: 'tag' });
    expect(failure('{"id":1}')).toEqual({ field: 'name', message: 'name is required' });
    expect(failure('{"id":1,"name":"a","tags":"x"}')).toEqual({ field: 'tags', message: "unknown property 'tags'" });
    expect(failure('[1]')).toMatchObject({ field: '', message: 'plant must be a JSON object' });
    expect(failure('"x"').field).toBe('');
  });

  it('writes every string exactly as JSON.stringify does', () => {
    const text = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.string({ unit: fc.constantFrom('"', '\\', '\n', '\u0000', '\u001f', '\u007f', '\u2028', '\ud800', '\udfff', 'a', 'é') }),
      fc.string({ unit: 'grapheme' }),
    );
    fc.assert(
      fc.property(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), text, fc.option(text, { nil: undefined }), (id, name, tag) => {
        const expected = `{"id":${id},"name":${JSON.stringify(name)}${tag === undefined ? '' : `,"tag":${JSON.stringify(tag)}`}}`;
        expect(plantToJson(tag === undefined ? { id, name } : { id, name, tag })).toBe(expected);
      }),
      { numRuns: 2000 },
    );
  });

  it('writes the wire form with tag omitted when absent', () => {
    expect(plantToJson({ id: 9223372036854775807n, name: 'a"b' })).toBe('{"id":9223372036854775807,"name":"a\\"b"}');
    expect(plantToJson({ id: -1n, name: 'x', tag: 't' })).toBe('{"id":-1,"name":"x","tag":"t"}');
  });
});

describe('NUL characters', () => {
  it.each(['name', 'tag'])('a %s holding U+0000 is a validation error naming it (PostgreSQL text cannot store it)', (field) => {
    const input = { id: 1, name: 'Fern', [field]: 'a\u0000b' };
    expect(() => parseNewPlant(input)).toThrow(`${field} must not contain the NUL character`);
  });
});
