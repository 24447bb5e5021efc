import { ValidationError, type ListPlantsInput } from '@plant-store/core';
import { INT32_MAX, INT64_MAX, INT64_MIN, int64FromInteger } from '@plant-store/core/adapter';
import { decodeQueryComponent } from './decode-query-component.js';

const LIMIT_MESSAGE = `limit must be an integer between 0 and ${INT32_MAX}`;
const AFTER_MESSAGE = `after must be an integer between ${INT64_MIN} and ${INT64_MAX}`;
const DIGITS = /^\d{1,10}$/;

/** The list options of `GET /plants`: `limit` (int32), `after` (int64), `tag` (repeatable, checked by the core). */
export function parseListQuery(query: string): ListPlantsInput {
  if (query === '') return {};
  let limit: number | undefined;
  let after: bigint | undefined;
  let tags: string[] | undefined;
  for (const pair of query.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const name = eq === -1 ? pair : pair.slice(0, eq);
    const raw = eq === -1 ? '' : pair.slice(eq + 1);
    switch (name) {
      case 'limit':
        if (limit !== undefined) throw ValidationError.of('limit', 'limit must be given at most once');
        limit = parseLimit(decodeQueryComponent('limit', raw));
        break;
      case 'after':
        if (after !== undefined) throw ValidationError.of('after', 'after must be given at most once');
        after = int64FromInteger(decodeQueryComponent('after', raw));
        if (after === undefined) throw ValidationError.of('after', AFTER_MESSAGE);
        break;
      case 'tag':
        (tags ??= []).push(decodeQueryComponent('tag', raw));
        break;
      default:
      // Unknown parameters are ignored (cache busters, tracing, …).
    }
  }
  const options: { limit?: number; after?: bigint; tags?: string[] } = {};
  if (limit !== undefined) options.limit = limit;
  if (after !== undefined) options.after = after;
  if (tags !== undefined) options.tags = tags;
  return options;
}

function parseLimit(text: string): number {
  if (!DIGITS.test(text)) throw ValidationError.of('limit', LIMIT_MESSAGE);
  const limit = Number(text);
  if (limit > INT32_MAX) throw ValidationError.of('limit', LIMIT_MESSAGE);
  return limit;
}
