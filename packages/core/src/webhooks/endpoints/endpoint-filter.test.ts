import { LosslessNumber } from 'lossless-json';
import { describe, expect, it } from 'vitest';
import { validate } from '../../domain/validate.js';
import { ValidationError } from '../../errors.js';
import { endpointFilterSchema, ENDPOINT_FILTER_MAX_BYTES, filterEvent, filterText, matchesFilter, parseFilter } from './endpoint-filter.js';

const check = (filter: unknown) => validate(endpointFilterSchema, filter, 'filter');

/** The field and message of the ValidationError the filter gets. */
function refusal(filter: unknown): { field: string; message: string } {
  try {
    check(filter);
  } catch (error) {
    if (error instanceof ValidationError) return { field: error.field, message: error.message };
    throw error;
  }
  throw new Error(`accepted ${JSON.stringify(filter)}`);
}

const plantEvent = (body: string, type = 'plant.created', tenant = 'acme') => filterEvent(type, tenant, body);
const matches = (filter: unknown, event = plantEvent('{"id":1,"name":"Fern","tag":"indoor"}')) => matchesFilter(check(filter), event);

describe('endpoint filters', () => {
  it('matches the documented example: a tag in a list', () => {
    const filter = { 'data.tag': { $in: ['indoor', 'rare'] } };
    expect(matches(filter, plantEvent('{"id":1,"name":"Fern","tag":"indoor"}'))).toBe(true);
    expect(matches(filter, plantEvent('{"id":2,"name":"Orchid","tag":"rare"}'))).toBe(true);
    expect(matches(filter, plantEvent('{"id":3,"name":"Oak","tag":"outdoor"}'))).toBe(false);
    expect(matches(filter, plantEvent('{"id":4,"name":"Moss"}'))).toBe(false);
  });

  it('evaluates every listed operator over type, tenant and data', () => {
    const event = plantEvent('{"id":7,"name":"Fern","tag":"indoor","tags":["a","b"],"size":2.5}');
    expect(matches({ type: 'plant.created', tenant: 'acme' }, event)).toBe(true);
    expect(matches({ type: { $eq: 'plant.deleted' } }, event)).toBe(false);
    expect(matches({ tenant: { $ne: 'globex' } }, event)).toBe(true);
    expect(matches({ 'data.id': { $gt: 6, $lte: 7 } }, event)).toBe(true);
    expect(matches({ 'data.id': { $gte: 8 } }, event)).toBe(false);
    expect(matches({ 'data.id': { $lt: 8 } }, event)).toBe(true);
    expect(matches({ 'data.size': { $gt: 2, $lt: 3 } }, event)).toBe(true);
    expect(matches({ 'data.tag': { $nin: ['outdoor'] } }, event)).toBe(true);
    expect(matches({ 'data.tag': { $exists: true }, 'data.note': { $exists: false } }, event)).toBe(true);
    expect(matches({ 'data.tag': { $not: { $in: ['indoor'] } } }, event)).toBe(false);
    expect(matches({ $or: [{ 'data.tag': 'outdoor' }, { 'data.name': 'Fern' }] }, event)).toBe(true);
    expect(matches({ $and: [{ 'data.tag': 'indoor' }, { 'data.name': 'Oak' }] }, event)).toBe(false);
    // An array matches when it contains the value.
    expect(matches({ 'data.tags': 'b' }, event)).toBe(true);
    expect(matches({ 'data.tags': { $in: ['c', 'a'] } }, event)).toBe(true);
    expect(matches({ 'data.tags': 'c' }, event)).toBe(false);
  });

  it('compares int64 ids exactly, however they were spelled', () => {
    const big = plantEvent('{"id":9223372036854775807,"name":"Fern"}');
    expect(matches({ 'data.id': 9223372036854775807n }, big)).toBe(true);
    expect(matches({ 'data.id': 9223372036854775806n }, big)).toBe(false);
    expect(matches({ 'data.id': { $gt: 9223372036854775806n } }, big)).toBe(true);
    expect(matches({ 'data.id': { $gt: 5 } }, big)).toBe(true);
    expect(matches({ 'data.id': { $lt: 9.3e18 } }, big)).toBe(true);
    expect(matches({ 'data.name': { $gt: 5 } }, plantEvent('{"id":1,"name":"Fern"}'))).toBe(false);
    expect(matches({ 'data.name': { $gte: 'A', $lt: 'G' } }, plantEvent('{"id":1,"name":"Fern"}'))).toBe(true);
    expect(matches({ 'data.id': { $in: [1, 9223372036854775807n] } }, big)).toBe(true);
    expect(matches({ 'data.size': { $lt: new LosslessNumber('2.75') } }, plantEvent('{"id":1,"size":2.5}'))).toBe(true);
  });

  it('stores a filter as JSON text that reads back equal (integers exact)', () => {
    const filter = check({ 'data.id': { $in: [1, 9223372036854775807n] }, $or: [{ 'data.tag': null }, { tenant: 'acme' }] });
    expect(filterText(filter)).toBe('{"data.id":{"$in":[1,9223372036854775807]},"$or":[{"data.tag":null},{"tenant":"acme"}]}');
    expect(parseFilter(filterText(filter))).toEqual(filter);
    expect(matchesFilter(filterText(filter), plantEvent('{"id":1}'))).toBe(true);
  });

  it.each([
    [{ 'data.name': { $where: 'sleep(1000)' } }, 'filter.data.name.$where'],
    [{ 'data.name': { $regex: '^F' } }, 'filter.data.name.$regex'],
    [{ 'data.name': { $function: {} } }, 'filter.data.name.$function'],
    [{ 'data.tags': { $elemMatch: { $eq: 'a' } } }, 'filter.data.tags.$elemMatch'],
    [{ 'data.tag': { $not: { $regex: 'x' } } }, 'filter.data.tag.$not.$regex'],
    [{ $where: 'true' }, 'filter.$where'],
    [{ $nor: [{ type: 'plant.created' }] }, 'filter.$nor'],
    [{ $or: [{ type: 'plant.created' }, { 'data.x': { $size: 1 } }] }, 'filter.$or.1.data.x.$size'],
    [{ 'data.$where': 1 }, 'filter.data.$where'],
    [{ name: 'Fern' }, 'filter.name'],
    [{ 'data..tag': 1 }, 'filter.data..tag'],
    [{ 'data.tag': ['indoor'] }, 'filter.data.tag'],
    [{ 'data.tag': { $in: 'indoor' } }, 'filter.data.tag.$in'],
    [{ 'data.tag': { $in: [{ a: 1 }] } }, 'filter.data.tag.$in.0'],
    [{ 'data.tag': { $exists: 1 } }, 'filter.data.tag.$exists'],
    [{ 'data.tag': { $gt: [1] } }, 'filter.data.tag.$gt'],
    [{ 'data.tag': {} }, 'filter.data.tag'],
    [{ $and: [] }, 'filter.$and'],
    [{ $or: [1] }, 'filter.$or.0'],
  ])('refuses %j with a 400 naming %s', (filter, field) => {
    expect(refusal(filter).field).toBe(field);
  });

  it('refuses what is not an object, a filter over its size, and one nested too deep', () => {
    for (const filter of [null, [], 'type', 1]) expect(refusal(filter)).toEqual({ field: 'filter', message: expect.stringContaining('JSON object') });
    const large = { 'data.tag': { $in: Array.from({ length: ENDPOINT_FILTER_MAX_BYTES / 8 }, (_, index) => `tag-${index}`) } };
    expect(refusal(large)).toEqual({ field: 'filter', message: expect.stringContaining(`${ENDPOINT_FILTER_MAX_BYTES} bytes`) });
    let deep: Record<string, unknown> = { type: 'plant.created' };
    for (let level = 0; level < 5; level++) deep = { $or: [deep] };
    expect(refusal(deep).message).toMatch(/nests deeper than 8 levels/);
    let negations: Record<string, unknown> = { $eq: 1 };
    for (let level = 0; level < 7; level++) negations = { $not: negations };
    expect(refusal({ 'data.id': negations }).message).toMatch(/nests deeper than 8 levels/);
    expect(check({ $or: [{ $and: [{ 'data.id': { $not: { $gt: 1 } } }] }] })).toBeDefined();
  });
});
